package telegram

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
)

// Native streaming (docs/platforms.md#telegram-streaming): in a private chat
// sendMessageDraft shows a live preview that the same draft_id animates in
// place; the preview is ephemeral, so Finish posts the answer with
// sendMessage. Groups refuse drafts and answer by send and edit.

var _ chat.Streamer = (*Adapter)(nil)

// ErrStreamGroup is StartStream's answer outside private chats.
var ErrStreamGroup = fmt.Errorf("telegram: drafts (sendMessageDraft) exist only in private chats: %w", chat.ErrStreamNotHere)

// StreamsIn reports whether t is a private chat, where drafts exist.
func (a *Adapter) StreamsIn(t chat.Thread) bool {
	w, err := parseThread(t)
	return err == nil && private(w.chat)
}

// StartStream opens a draft in a private chat. It makes no call: the first
// Append shows the draft.
func (a *Adapter) StartStream(_ context.Context, t chat.Thread, _ chat.User) (chat.Stream, error) {
	w, err := parseThread(t)
	if err != nil {
		return nil, err
	}
	if !private(w.chat) {
		return nil, ErrStreamGroup
	}
	// Random rather than counted, so that a restarted process does not
	// animate a draft of the one before it.
	id := rand.Int64N(1<<53) + 1
	return &draft{a: a, t: t, w: w, id: id}, nil
}

// draft is one streamed answer.
type draft struct {
	a  *Adapter
	t  chat.Thread
	w  where
	id int64

	mu   sync.Mutex
	text string // Markdown shown so far
	full bool   // the text outgrew a message; the draft holds still
}

// Append shows the whole text so far, rendered afresh (a delta alone may
// split a Markdown construct). Past a message's length the draft holds
// still: Finish posts the answer, split by the core.
func (d *draft) Append(ctx context.Context, delta string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	text := d.text + delta
	if d.full || format.MeasureTelegram(text) > maxLen {
		d.full = true
		d.text = text
		return nil
	}
	p := tgbotapi.Params{
		"chat_id":    strconv.FormatInt(d.w.chat, 10),
		"draft_id":   strconv.FormatInt(d.id, 10),
		"text":       format.TelegramHTML(text),
		"parse_mode": "HTML",
	}
	p.AddNonZero("message_thread_id", d.w.topic)
	if _, err := d.a.call(ctx, "sendMessageDraft", p); err != nil {
		// Not kept: the next Append carries this delta again.
		return err
	}
	d.text = text
	return nil
}

// Finish posts final as the answer's message; the draft then disappears.
func (d *draft) Finish(ctx context.Context, final chat.Out) (chat.MessageRef, error) {
	return d.a.Send(ctx, d.t, final)
}
