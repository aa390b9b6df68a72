package telegram_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/telegram"
	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// TestConformance runs the adapter conformance suite against the real
// adapter, polling telegramtest over the real Bot API wire protocol, with a
// real store as its State.
func TestConformance(t *testing.T) {
	bottest.RunConformance(t, newTelegramHarness)
}

// forumID is the supergroup with topics every GroupThread lives in: the
// suite's group conversations are forum topics (bottest.GroupThread).
const forumID = -1001234567890

type telegramHarness struct {
	srv *telegramtest.Server
	ad  *telegram.Adapter

	mu     sync.Mutex
	users  map[string]int64
	topics int
}

func newTelegramHarness(t *testing.T) bottest.Harness {
	// The fake's own rate limits are off: the suite provokes 429s only
	// through RateLimitNext.
	srv := telegramtest.NewServer(telegramtest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	ad, err := telegram.New(telegram.Config{
		Token:       srv.Token(),
		APIURL:      srv.URL,
		State:       db,
		PollTimeout: 5 * time.Second,
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatalf("telegram.New: %v", err)
	}
	srv.AddForum(forumID, "Conformance forum")
	return &telegramHarness{srv: srv, ad: ad, users: map[string]int64{}}
}

func (h *telegramHarness) Adapter() chat.Adapter { return h.ad }

func (h *telegramHarness) User(name string) chat.User {
	h.mu.Lock()
	defer h.mu.Unlock()
	id, ok := h.users[name]
	if !ok {
		id = int64(2001 + len(h.users))
		h.users[name] = id
		h.srv.AddUser(id, name, strings.ToLower(name))
	}
	return chat.User{Platform: "telegram", ID: strconv.FormatInt(id, 10), Name: name}
}

func (h *telegramHarness) Thread(kind bottest.ThreadKind, with chat.User) chat.Thread {
	if kind == bottest.DirectThread {
		// A private chat's id is the person's; it is one conversation.
		return chat.Thread{Platform: "telegram", Chat: with.ID}
	}
	h.mu.Lock()
	h.topics++
	n := h.topics
	h.mu.Unlock()
	topic := h.srv.AddTopic(forumID, fmt.Sprintf("conformance %d", n))
	return chat.Thread{Platform: "telegram", Chat: strconv.FormatInt(forumID, 10), ID: "topic:" + strconv.Itoa(topic)}
}

// where decodes a harness thread: chat and topic.
func where(t chat.Thread) (int64, int, error) {
	chat, err := strconv.ParseInt(t.Chat, 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("telegram harness: thread %v has no chat id", t)
	}
	topic := 0
	if s, ok := strings.CutPrefix(t.ID, "topic:"); ok {
		if topic, err = strconv.Atoi(s); err != nil {
			return 0, 0, fmt.Errorf("telegram harness: thread %v has a bad topic", t)
		}
	}
	return chat, topic, nil
}

func (h *telegramHarness) UserMessage(_ context.Context, m bottest.MessageSpec) (string, error) {
	chat, topic, err := where(m.Thread)
	if err != nil {
		return "", err
	}
	from, err := strconv.ParseInt(m.From.ID, 10, 64)
	if err != nil {
		return "", fmt.Errorf("telegram harness: user %q", m.From.ID)
	}
	p := h.srv.Post(telegramtest.Incoming{Chat: chat, From: from, Text: m.Text, Topic: topic, Mention: m.Mention, FromBot: m.FromBot})
	if m.Twice {
		// Telegram repeats an update whose offset was not confirmed.
		if err := h.srv.Redeliver(p.UpdateID); err != nil {
			return "", err
		}
	}
	return strconv.Itoa(p.MessageID), nil
}

func (h *telegramHarness) Click(_ context.Context, ref chat.MessageRef, button int, by chat.User) error {
	chat, _, err := where(ref.Thread)
	if err != nil {
		return err
	}
	id, err := strconv.Atoi(ref.ID)
	if err != nil {
		return fmt.Errorf("telegram harness: message id %q", ref.ID)
	}
	from, err := strconv.ParseInt(by.ID, 10, 64)
	if err != nil {
		return fmt.Errorf("telegram harness: user %q", by.ID)
	}
	_, err = h.srv.Click(chat, id, button, from)
	return err
}

func (h *telegramHarness) Visible(t chat.Thread) []bottest.Visible {
	chat, topic, err := where(t)
	if err != nil {
		return nil
	}
	var out []bottest.Visible
	for _, m := range h.srv.BotMessages(chat) {
		if m.Topic != topic {
			continue
		}
		out = append(out, visible(m))
	}
	return out
}

func visible(m telegramtest.Message) bottest.Visible {
	v := bottest.Visible{ID: strconv.Itoa(m.ID), Text: m.Visible, Bold: m.Bold, Code: m.Code, Previews: m.Previews}
	for _, row := range m.Buttons {
		for _, b := range row {
			v.Buttons = append(v.Buttons, b.Text)
		}
	}
	return v // Pings stay nil: Telegram has no mass mentions
}

func (h *telegramHarness) PrivateTo(u chat.User) []string {
	id, err := strconv.ParseInt(u.ID, 10, 64)
	if err != nil {
		return nil
	}
	var out []string
	for _, a := range h.srv.CallbackAnswers() {
		if a.UserID == id && a.Text != "" {
			out = append(out, a.Text)
		}
	}
	for _, m := range h.srv.BotMessages(id) {
		out = append(out, m.Visible)
	}
	return out
}

func (h *telegramHarness) RateLimitNext(op bottest.Op, retryAfter time.Duration) {
	switch op {
	case bottest.OpSend:
		// A streamed answer sends by draft first.
		h.srv.RateLimitNext("sendMessage", retryAfter)
		h.srv.RateLimitNext("sendMessageDraft", retryAfter)
	case bottest.OpEdit:
		h.srv.RateLimitNext("editMessageText", retryAfter)
	default:
		panic(fmt.Sprintf("telegram harness: no rate limit for %v", op))
	}
}

func (h *telegramHarness) RendersMarkdown() bool { return true }
