package telegramtest

import (
	"slices"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Button is an inline keyboard button as the bot sent it.
type Button struct{ Text, Data string }

// Message is a message as a person sees it now (edits applied).
type Message struct {
	ID        int
	Chat      int64
	Topic     int   // message_thread_id (0 none)
	From      int64 // sender id (the bot's id for its own messages)
	FromBot   bool
	Text      string // as sent or last edited: HTML source when ParseMode is HTML
	ParseMode string
	Visible   string   // what a person reads: tags gone, entities decoded
	Entities  []Entity // the entities of Visible, parsed or as sent
	Bold      []string // runs shown bold, in order
	Code      []string // runs shown as code, in order
	ReplyTo   int      // the explicit reply target (0 none)
	Buttons   [][]Button
	Edits     int  // successful edits (text or markup)
	Service   bool // a service message (topic created)
	// Previews: a link in it made Telegram fetch it for a preview (sent
	// or edited without link_preview_options.is_disabled).
	Previews bool
}

func (m *message) export() Message {
	out := Message{
		ID:        m.id,
		Chat:      m.chat.id,
		Topic:     m.thread,
		From:      m.from.id,
		FromBot:   m.from.isBot,
		Text:      m.text,
		ParseMode: m.parseMode,
		Visible:   m.parsed.Visible,
		Entities:  slices.Clone(m.parsed.Entities),
		Bold:      slices.Clone(m.parsed.Bold),
		Code:      slices.Clone(m.parsed.Code),
		Previews:  m.previews && hasLink(m.parsed),
		ReplyTo:   m.replyTo,
		Edits:     m.edits,
		Service:   m.service,
	}
	if m.service {
		out.Visible = m.topicName
	}
	if m.markup != nil {
		for _, row := range m.markup.InlineKeyboard {
			var r []Button
			for _, b := range row {
				data := ""
				if b.CallbackData != nil {
					data = *b.CallbackData
				}
				r = append(r, Button{Text: b.Text, Data: data})
			}
			out.Buttons = append(out.Buttons, r)
		}
	}
	return out
}

// MentionedIDs returns the ids of the people the message mentions by id,
// in order, each once: its text_mention entities, which an HTML
// <a href="tg://user?id=…"> becomes, or a plain text's entities name.
// Telegram notifies them. (An @username in the text notifies its owner
// too; the fake does not resolve usernames.)
func (m Message) MentionedIDs() []int64 {
	var ids []int64
	for _, e := range m.Entities {
		if e.Type == "text_mention" && e.User.ID != 0 && !slices.Contains(ids, e.User.ID) {
			ids = append(ids, e.User.ID)
		}
	}
	return ids
}

// messages lists the live messages of a chat that keep returns true for.
func (s *Server) messages(chatID int64, keep func(*message) bool) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.world.chats[chatID]
	if !ok {
		return nil
	}
	var out []Message
	for _, m := range c.msgs {
		if !m.deleted && keep(m) {
			out = append(out, m.export())
		}
	}
	return out
}

// Messages lists every message of the chat that was not deleted, oldest
// first, the bot's and people's.
func (s *Server) Messages(chat int64) []Message {
	return s.messages(chat, func(*message) bool { return true })
}

// TopicMessages lists the messages of one forum topic (0: outside topics).
func (s *Server) TopicMessages(chat int64, topic int) []Message {
	return s.messages(chat, func(m *message) bool { return m.thread == topic })
}

// BotMessages lists the bot's own messages in the chat.
func (s *Server) BotMessages(chat int64) []Message {
	return s.messages(chat, func(m *message) bool { return m.from == s.world.bot })
}

// Calls lists every Bot API call, in order, getMe and getUpdates included.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// CallsTo lists the calls of one method.
func (s *Server) CallsTo(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// CallbackAnswers lists the successful answerCallbackQuery calls.
func (s *Server) CallbackAnswers() []CallbackAnswer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.answers)
}

// Drafts lists every successful sendMessageDraft to the chat, in order.
func (s *Server) Drafts(chat int64) []Draft {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.world.chats[chat]; ok {
		return slices.Clone(c.drafts)
	}
	return nil
}

// Commands are the commands of the last setMyCommands (whatever its scope).
func (s *Server) Commands() []tgbotapi.BotCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.commands)
}

// ChatActions lists the actions sent with sendChatAction to the chat.
func (s *Server) ChatActions(chat int64) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.world.chats[chat]; ok {
		return slices.Clone(c.actions)
	}
	return nil
}

// RateLimited counts the 429s answered because a flood limit was hit
// (injected ones excluded).
func (s *Server) RateLimited() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rateLimited
}

// Offset is the offset of the latest getUpdates call.
func (s *Server) Offset() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.offset
}

// Pending counts the queued updates not yet confirmed.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue.pending)
}

// hasLink reports whether p shows a link Telegram would preview: a URL in
// the text or a text_link entity.
func hasLink(p Parsed) bool {
	if strings.Contains(p.Visible, "://") {
		return true
	}
	for _, e := range p.Entities {
		if e.Type == "text_link" || e.Type == "url" {
			return true
		}
	}
	return false
}
