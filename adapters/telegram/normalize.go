package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/parleybot/parley/chat"
)

// update is one inbound update decoded twice: the library's struct, and
// the fields telegram-bot-api v5.5.1 predates and drops
// (docs/platforms.md#telegram-library-gaps).
type update struct {
	tg  tgbotapi.Update
	ext extUpdate
}

type extUpdate struct {
	Message       *extMessage `json:"message"`
	CallbackQuery *struct {
		Message *extMessage `json:"message"`
	} `json:"callback_query"`
}

type extMessage struct {
	ThreadID          int  `json:"message_thread_id"`
	IsTopic           bool `json:"is_topic_message"`
	ForumTopicCreated *struct {
		Name string `json:"name"`
	} `json:"forum_topic_created"`
	ReplyTo *extMessage `json:"reply_to_message"`
}

// errMalformed marks an update that cannot be understood; it never will
// be, so it is logged and skipped.
var errMalformed = errors.New("malformed update")

// updateID reads just the update_id, which decides the poll offset even
// when the rest of the update is malformed.
func updateID(raw []byte) (int, bool) {
	var head struct {
		UpdateID *int `json:"update_id"`
	}
	if json.Unmarshal(raw, &head) != nil || head.UpdateID == nil {
		return 0, false
	}
	return *head.UpdateID, true
}

func decodeUpdate(raw []byte) (update, error) {
	var u update
	if err := json.Unmarshal(raw, &u.tg); err != nil {
		return update{}, fmt.Errorf("%w: %w", errMalformed, err)
	}
	if err := json.Unmarshal(raw, &u.ext); err != nil {
		return update{}, fmt.Errorf("%w: %w", errMalformed, err)
	}
	return u, nil
}

// normalizeMessage turns a message into a chat.Message; ok is false for one
// the bot is not to see: neither text nor a file, no author, or a command
// addressed to another bot. A photo or document without a caption is
// seen: the picture is the message; so are voice notes and videos (which
// are answered as unread) and stickers (as their emoji). Errors are the State's: the message
// is then retried.
func (a *Adapter) normalizeMessage(ctx context.Context, m *tgbotapi.Message, x *extMessage, me tgbotapi.User) (chat.Message, bool, error) {
	if m == nil || m.Chat == nil {
		return chat.Message{}, false, nil
	}
	if x == nil {
		x = &extMessage{}
	}
	// A document or photo carries its text as a caption: "/kb add" typed
	// with a file is a command like any other.
	text, entities := m.Text, m.Entities
	if text == "" {
		text, entities = m.Caption, m.CaptionEntities
	}
	if text == "" {
		text = stickerText(m.Sticker)
	}
	user, ok := author(m)
	files := filesOf(m)
	if text == "" && len(files) == 0 || !ok {
		return chat.Message{}, false, nil
	}
	text, mentioned, forOther := address(text, entities, me)
	if forOther {
		return chat.Message{}, false, nil
	}
	if r := m.ReplyToMessage; r != nil && r.From != nil && me.ID != 0 && r.From.ID == me.ID &&
		!(x.IsTopic && r.MessageID == x.ThreadID) {
		// In a topic every message "replies" to the topic's creation
		// message unless it replies to another: that one is no reply.
		mentioned = true
	}
	id, err := a.messageThread(ctx, m, x)
	if err != nil {
		return chat.Message{}, false, err
	}
	direct := m.Chat.Type == "private"
	place := chat.Place{ChatName: m.Chat.Title, ChatKind: "group"}
	if direct {
		place = chat.Place{ChatName: strings.TrimSpace(m.Chat.FirstName + " " + m.Chat.LastName), ChatKind: "direct"}
	}
	if x.IsTopic && x.ReplyTo != nil && x.ReplyTo.ForumTopicCreated != nil {
		place.Thread = x.ReplyTo.ForumTopicCreated.Name
	}
	return chat.Message{
		Key:       messageKey(m.Chat.ID, m.MessageID),
		ID:        strconv.Itoa(m.MessageID),
		Thread:    makeThread(m.Chat.ID, id),
		User:      user,
		Text:      text,
		Place:     place,
		Direct:    direct,
		Mentioned: mentioned,
		// An anonymous admin posts as the group with a placeholder bot as
		// from: a person all the same.
		FromBot: m.From != nil && m.From.IsBot && m.SenderChat == nil,
		Files:   files,
	}, true, nil
}

// messageKey is stable forever, unlike update_id, which Telegram may
// restart after a long idle.
func messageKey(chat int64, messageID int) string {
	return "telegram:" + strconv.FormatInt(chat, 10) + ":" + strconv.Itoa(messageID)
}

// messageThread finds m's conversation, and records reply-chain
// membership so replies to m continue it.
func (a *Adapter) messageThread(ctx context.Context, m *tgbotapi.Message, x *extMessage) (string, error) {
	switch {
	case m.Chat.Type == "private":
		return "", nil
	case x.IsTopic && x.ThreadID > 0:
		return topicID(x.ThreadID), nil
	}
	root := m.MessageID
	if r := m.ReplyToMessage; r != nil {
		known, ok, err := a.chainOf(ctx, m.Chat.ID, r.MessageID)
		if !ok && err == nil && r.From != nil && r.From.ID == a.self().ID {
			// A reply to the bot's message that its send may not have
			// recorded yet.
			a.chains.wait(ctx, m.Chat.ID)
			known, ok, err = a.chainOf(ctx, m.Chat.ID, r.MessageID)
		}
		if err != nil {
			return "", err
		}
		if ok {
			root = known
		}
	}
	if err := a.joinChain(ctx, m.Chat.ID, m.MessageID, root); err != nil {
		return "", err
	}
	return strconv.Itoa(root), nil
}

// author names who wrote m. A message sent on behalf of a chat (an
// anonymous admin, a channel) is that chat's, so that no memory lands on
// Telegram's placeholder user.
func author(m *tgbotapi.Message) (chat.User, bool) {
	if c := m.SenderChat; c != nil {
		return chat.User{Platform: platform, ID: "chat:" + strconv.FormatInt(c.ID, 10), Name: c.Title}, true
	}
	if m.From == nil {
		return chat.User{}, false
	}
	return person(m.From), true
}

func person(u *tgbotapi.User) chat.User {
	return chat.User{Platform: platform, ID: strconv.FormatInt(u.ID, 10), Name: strings.TrimSpace(u.FirstName + " " + u.LastName)}
}

// address reads how text addresses the bot: mentioned by @username or a
// text_mention, or a command at the start for the bot. It removes those
// mentions (and a command's "@bot", so the core parses "/memory forget
// 2"). forOther is a command addressed to another bot. Entity offsets are
// UTF-16 code units, and untrusted.
func address(text string, ents []tgbotapi.MessageEntity, me tgbotapi.User) (out string, mentioned, forOther bool) {
	u := utf16.Encode([]rune(text))
	var cuts [][2]int
	for _, e := range ents {
		if e.Offset < 0 || e.Length <= 0 || e.Offset > len(u) || e.Length > len(u)-e.Offset {
			continue
		}
		s := string(utf16.Decode(u[e.Offset : e.Offset+e.Length]))
		switch e.Type {
		case "mention":
			if me.UserName != "" && strings.EqualFold(s, "@"+me.UserName) {
				mentioned = true
				cuts = append(cuts, [2]int{e.Offset, e.Offset + e.Length})
			}
		case "text_mention":
			if e.User != nil && me.ID != 0 && e.User.ID == me.ID {
				mentioned = true
				cuts = append(cuts, [2]int{e.Offset, e.Offset + e.Length})
			}
		case "bot_command":
			if e.Offset != 0 {
				continue
			}
			cmd, to, addressed := strings.Cut(s, "@")
			if addressed && !strings.EqualFold(to, me.UserName) {
				return "", false, true
			}
			mentioned = true
			if addressed {
				start := e.Offset + len(utf16.Encode([]rune(cmd)))
				cuts = append(cuts, [2]int{start, e.Offset + e.Length})
			}
		}
	}
	if len(cuts) == 0 {
		return text, mentioned, false
	}
	return strings.TrimSpace(cutSpans(u, cuts)), mentioned, false
}

// cutSpans returns u without the spans, dropping the doubled space a cut
// from the middle of a sentence would leave.
func cutSpans(u []uint16, cuts [][2]int) string {
	slices.SortFunc(cuts, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	pos := 0
	for _, c := range cuts {
		if c[0] < pos {
			continue // overlapping entities: the first wins
		}
		b.WriteString(string(utf16.Decode(u[pos:c[0]])))
		pos = c[1]
		if strings.HasSuffix(b.String(), " ") {
			for pos < len(u) && u[pos] == ' ' {
				pos++
			}
		}
	}
	b.WriteString(string(utf16.Decode(u[pos:])))
	return b.String()
}

// normalizeAction turns a click into a chat.Action (without Respond); ok is
// false for a query without the message it was under (inline mode), or
// without a clicker.
func (a *Adapter) normalizeAction(ctx context.Context, q *tgbotapi.CallbackQuery, x *extMessage) (chat.Action, bool, error) {
	if q == nil || q.From == nil || q.Message == nil || q.Message.Chat == nil {
		return chat.Action{}, false, nil
	}
	m := q.Message
	if x == nil {
		x = &extMessage{}
	}
	var id string
	switch {
	case m.Chat.Type == "private":
	case x.IsTopic && x.ThreadID > 0:
		id = topicID(x.ThreadID)
	default:
		root, ok, err := a.chainOf(ctx, m.Chat.ID, m.MessageID)
		if err != nil {
			return chat.Action{}, false, err
		}
		if !ok {
			root = m.MessageID // a message from before chains were kept
		}
		id = strconv.Itoa(root)
	}
	t := makeThread(m.Chat.ID, id)
	return chat.Action{
		Key:     "telegram:cb:" + q.ID,
		Thread:  t,
		User:    person(q.From),
		Data:    q.Data,
		Message: chat.MessageRef{Thread: t, ID: strconv.Itoa(m.MessageID)},
	}, true, nil
}
