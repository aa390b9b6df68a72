package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
)

// rendered is an Out as the Bot API takes it.
type rendered struct {
	text      string
	parseMode string
	// entities format plain text (no parseMode): the text mentions of its
	// Mentions.
	entities []tgbotapi.MessageEntity
	keyboard *tgbotapi.InlineKeyboardMarkup
}

// render turns out into HTML (or plain text when out.Plain: Telegram
// refused the HTML), refusing what Telegram would refuse: over-long text
// (the core splits; adapters never truncate) and button payloads outside
// callback_data's 1–64 bytes.
func render(out chat.Out) (rendered, error) {
	r := rendered{text: htmlMentions(out, format.TelegramHTML(out.Text)), parseMode: "HTML"}
	n := format.TelegramVisibleLen(r.text)
	if out.Plain {
		r = plainMentions(out, format.Plain(out.Text))
		n = format.UTF16Len(r.text)
	}
	if strings.TrimSpace(r.text) == "" {
		return rendered{}, errors.New("telegram: empty message text")
	}
	if n > maxLen {
		return rendered{}, fmt.Errorf("telegram: message of %d characters is over Telegram's %d", n, maxLen)
	}
	if len(out.Buttons) > 0 {
		row := make([]tgbotapi.InlineKeyboardButton, 0, len(out.Buttons))
		for _, b := range out.Buttons {
			if b.Data == "" || len(b.Data) > chat.MaxButtonData {
				return rendered{}, fmt.Errorf("telegram: button %q has a %d-byte payload; callback_data takes 1–%d", b.Label, len(b.Data), chat.MaxButtonData)
			}
			row = append(row, tgbotapi.NewInlineKeyboardButtonData(b.Label, b.Data))
		}
		kb := tgbotapi.NewInlineKeyboardMarkup(row)
		r.keyboard = &kb
	}
	return r, nil
}

// params are the text parameters shared by sendMessage and
// editMessageText. Link previews are off: a model citing five URLs must
// not drown its answer in previews.
func (r rendered) params(p tgbotapi.Params) error {
	p["text"] = r.text
	p.AddNonEmpty("parse_mode", r.parseMode)
	if len(r.entities) > 0 {
		if err := p.AddInterface("entities", r.entities); err != nil {
			return err
		}
	}
	if err := p.AddInterface("link_preview_options", map[string]bool{"is_disabled": true}); err != nil {
		return err
	}
	if r.keyboard != nil {
		return p.AddInterface("reply_markup", r.keyboard)
	}
	return nil
}

// Send posts out in t: in its topic, or into its reply chain, which
// remembers the message so that a reply to it continues the conversation.
func (a *Adapter) Send(ctx context.Context, t chat.Thread, out chat.Out) (chat.MessageRef, error) {
	w, err := parseThread(t)
	if err != nil {
		return chat.MessageRef{}, err
	}
	if w.root != 0 {
		defer a.chains.begin(w.chat)()
	}
	id, err := a.sendMessage(ctx, w, out)
	if err != nil {
		return chat.MessageRef{}, err
	}
	if w.root != 0 {
		if err := a.joinChain(ctx, w.chat, id, w.root); err != nil {
			// The message is out: failing here would make the core send it
			// again. A reply to it starts a new chain instead.
			a.log.Error("sent message not recorded in its reply chain", "thread", t.String(), "message", id, "err", err)
		}
	}
	return chat.MessageRef{Thread: t, ID: strconv.Itoa(id)}, nil
}

func (a *Adapter) sendMessage(ctx context.Context, w where, out chat.Out) (int, error) {
	r, err := render(out)
	if err != nil {
		return 0, err
	}
	p := tgbotapi.Params{"chat_id": strconv.FormatInt(w.chat, 10)}
	p.AddNonZero("message_thread_id", w.topic)
	if err := r.params(p); err != nil {
		return 0, err
	}
	if out.ReplyTo != "" && !private(w.chat) {
		to, err := strconv.Atoi(out.ReplyTo)
		if err != nil {
			return 0, fmt.Errorf("telegram: reply to %q, not a message id", out.ReplyTo)
		}
		// Without allow_sending_without_reply a deleted question would
		// cost the answer.
		if err := p.AddInterface("reply_parameters", map[string]any{"message_id": to, "allow_sending_without_reply": true}); err != nil {
			return 0, err
		}
	}
	res, err := a.call(ctx, "sendMessage", p)
	if err != nil {
		return 0, err
	}
	var sent tgbotapi.Message
	if err := json.Unmarshal(res, &sent); err != nil || sent.MessageID == 0 {
		return 0, fmt.Errorf("telegram sendMessage: no message in the answer %.200q", res)
	}
	return sent.MessageID, nil
}

// Edit replaces the message's text. The keyboard is sent only when out has
// buttons: an edit without reply_markup removes it, which is what a
// decided approval needs.
func (a *Adapter) Edit(ctx context.Context, ref chat.MessageRef, out chat.Out) error {
	w, err := parseThread(ref.Thread)
	if err != nil {
		return err
	}
	id, err := strconv.Atoi(ref.ID)
	if err != nil || id <= 0 {
		return fmt.Errorf("telegram: edit of message %q, not a message id", ref.ID)
	}
	r, err := render(out)
	if err != nil {
		return err
	}
	p := tgbotapi.Params{"chat_id": strconv.FormatInt(w.chat, 10), "message_id": strconv.Itoa(id)}
	if err := r.params(p); err != nil {
		return err
	}
	_, err = a.call(ctx, "editMessageText", p)
	return err
}

// SendPrivate sends out to u's private chat: Telegram has no ephemeral
// messages. It fails with ErrNoPrivateChat, explained, when u never
// started the bot.
func (a *Adapter) SendPrivate(ctx context.Context, _ chat.Thread, u chat.User, out chat.Out) error {
	if strings.HasPrefix(u.ID, "chat:") {
		return fmt.Errorf("%w: %s writes anonymously, as a chat", ErrNoPrivateChat, u.ID)
	}
	chat, err := strconv.ParseInt(u.ID, 10, 64)
	if err != nil || !private(chat) {
		return fmt.Errorf("telegram: private message to %q, not a person's id", u.ID)
	}
	_, err = a.sendMessage(ctx, where{chat: chat}, out)
	return err
}

// Typing shows "typing…" for about 5 s (in t's topic, if any).
func (a *Adapter) Typing(ctx context.Context, t chat.Thread) error {
	w, err := parseThread(t)
	if err != nil {
		return err
	}
	p := tgbotapi.Params{"chat_id": strconv.FormatInt(w.chat, 10), "action": tgbotapi.ChatTyping}
	p.AddNonZero("message_thread_id", w.topic)
	_, err = a.call(ctx, "sendChatAction", p)
	return err
}

// PrivateLink is the deep link that opens a private chat with the bot and
// sends /start start when the person presses Start (chat.PrivateLinker):
// Telegram bots cannot open one themselves. "" until the bot knows its
// username (getMe at Run).
func (a *Adapter) PrivateLink(start string) string {
	name := a.self().UserName
	if name == "" {
		return ""
	}
	if start == "" {
		return "https://t.me/" + name
	}
	return "https://t.me/" + name + "?start=" + url.QueryEscape(start)
}
