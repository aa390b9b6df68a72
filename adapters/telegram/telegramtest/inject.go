package telegramtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Incoming is a message a person sends; Post records it and queues the
// update Telegram would deliver.
type Incoming struct {
	Chat int64 // chat id (a user id for a private chat)
	From int64 // author
	Text string
	// Topic is the message_thread_id in a forum; 0 is none (or General).
	Topic int
	// ReplyTo is the message_id this replies to; 0 is none. In a topic with
	// ReplyTo 0, reply_to_message is the topic's creation message, as
	// Telegram does.
	ReplyTo int
	Mention bool // prefix "@<bot username> " with a mention entity
	FromBot bool // from.is_bot = true
	// Document or Photo attach a file (files.go); Text is then the
	// caption, with its entities in caption_entities, as Telegram sends
	// media. At most one attachment is used, Document first.
	Document *Attachment
	Photo    *Attachment
	// Voice is a voice note (voice, audio/ogg unless MIME says), Audio a
	// music file (audio); Duration says how long either plays, as the
	// sender's client does. Each takes its turn after Document and Photo.
	Voice, Audio *Attachment
	Duration     int // seconds
}

// Posted identifies what Post created.
type Posted struct {
	MessageID, UpdateID int
	// FileID is the file_id of the attached document, or of the largest
	// size of the photo; "" without an attachment.
	FileID string
}

// Post records a message from a person and queues its update. Text starting
// with "/" gets a bot_command entity, as Telegram adds. In a group the
// author is a member from then on (members.go).
func (s *Server) Post(in Incoming) Posted {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.world.chat(in.Chat)
	from := s.world.user(in.From)
	if in.FromBot {
		from.isBot = true
	}
	s.joinLocked(c, from) // only members write in a group
	text, entities := in.Text, []Entity(nil)
	if in.Mention {
		at := "@" + s.opts.botUsername
		text = at + " " + text
		entities = append(entities, Entity{Type: "mention", Offset: 0, Length: utf16Len(at)})
	}
	if strings.HasPrefix(in.Text, "/") {
		cmd, _, _ := strings.Cut(in.Text, " ")
		cmd, _, _ = strings.Cut(cmd, "\n")
		entities = append(entities, Entity{Type: "bot_command", Offset: utf16Len(text) - utf16Len(in.Text), Length: utf16Len(cmd)})
	}
	m := &message{
		from:    from,
		thread:  in.Topic,
		text:    text,
		parsed:  Parsed{Visible: text, Entities: entities},
		replyTo: in.ReplyTo,
	}
	m.replyShown = in.ReplyTo
	if m.replyShown == 0 && in.Topic != 0 {
		m.replyShown = in.Topic
	}
	fileID := s.attachLocked(m, in)
	c.add(m)
	id := s.queueLocked("message", m.wire(true))
	return Posted{MessageID: m.id, UpdateID: id, FileID: fileID}
}

// queueLocked queues {"update_id":…, kind: obj} and wakes pollers.
func (s *Server) queueLocked(kind string, obj any) int {
	body, err := json.Marshal(obj)
	if err != nil {
		panic(fmt.Sprintf("telegramtest: marshal %s: %v", kind, err)) // our own types always marshal
	}
	id := s.queue.nextID
	raw := fmt.Appendf(nil, `{"update_id":%d,%q:%s}`, id, kind, body)
	s.queue.push(kind, raw)
	s.notifyLocked()
	return id
}

// callbackQuery is a click the bot has not answered yet.
type callbackQuery struct {
	userID   int64
	answered bool
}

// Click presses an inline button of a message (buttons are counted from 0,
// row by row, left to right) as user from, and queues the callback_query
// carrying that button's callback_data. It returns the query id that
// answerCallbackQuery must answer.
func (s *Server) Click(chatID int64, messageID int, button int, from int64) (queryID string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.world.chats[chatID]
	if !ok {
		return "", fmt.Errorf("telegramtest: click: no chat %d", chatID)
	}
	m := c.find(messageID)
	if m == nil {
		return "", fmt.Errorf("telegramtest: click: no message %d in chat %d", messageID, chatID)
	}
	var flat []inlineButton
	if m.markup != nil {
		for _, row := range m.markup.InlineKeyboard {
			flat = append(flat, row...)
		}
	}
	if button < 0 || button >= len(flat) {
		return "", fmt.Errorf("telegramtest: click: message %d has %d buttons, no button %d", messageID, len(flat), button)
	}
	b := flat[button]
	if b.CallbackData == nil {
		return "", errors.New("telegramtest: click: button " + strconv.Itoa(button) + " has no callback_data")
	}
	s.querySeq++
	queryID = strconv.FormatUint(4_000_000_000_000_000_000+s.querySeq, 10)
	s.queries[queryID] = &callbackQuery{userID: from}
	s.queueLocked("callback_query", wireCallbackQuery{
		ID:           queryID,
		From:         s.world.user(from).wire(),
		Message:      m.wire(true),
		ChatInstance: strconv.FormatInt(chatID*-7919+1, 10),
		Data:         *b.CallbackData,
	})
	return queryID, nil
}

// Redeliver serves an already delivered update again with the same
// update_id, as Telegram does when the bot did not confirm it (a crash
// before the next offset). It fails for an update_id never queued.
func (s *Server) Redeliver(updateID int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.queue.redeliver(updateID) {
		return fmt.Errorf("telegramtest: redeliver: no update %d", updateID)
	}
	s.notifyLocked()
	return nil
}

// PostRaw queues an arbitrary update object, setting (or overriding) its
// update_id, which it returns. A JSON object keeps every other field as
// given, however wrong; anything else (not JSON, not an object) is queued as
// {"update_id":N,"raw":"<the bytes as a string>"} so the batch around it
// stays decodable.
func (s *Server) PostRaw(update json.RawMessage) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(update, &fields); err != nil || fields == nil {
		raw, _ := json.Marshal(string(update))
		fields = map[string]json.RawMessage{"raw": raw}
	}
	id := s.queue.nextID
	fields["update_id"] = json.RawMessage(strconv.Itoa(id))
	kind := ""
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if k != "update_id" && k != "raw" {
			kind = k
			break
		}
	}
	raw, _ := json.Marshal(fields) // RawMessages already validated by Unmarshal
	s.queue.push(kind, raw)
	s.notifyLocked()
	return id
}
