package telegramtest

import (
	"context"
	"time"
)

// reachableLocked refuses private chats whose user has not started the bot.
func (s *Server) reachableLocked(c *chat) error {
	if c.private() && c.user != nil && !c.user.started {
		return errCantInitiate
	}
	return nil
}

// threadIn validates message_thread_id against c's topics.
func threadIn(c *chat, p params) (int, error) {
	thread, err := p.int("message_thread_id")
	if err != nil {
		return 0, err
	}
	if _, ok := c.topics[thread]; thread != 0 && !ok {
		return 0, badRequest("message thread not found")
	}
	return thread, nil
}

func (s *Server) sendMessage(_ context.Context, p params) (any, error) {
	c, err := s.chatLocked(p)
	if err != nil {
		return nil, err
	}
	if err := s.reachableLocked(c); err != nil {
		return nil, err
	}
	thread, err := threadIn(c, p)
	if err != nil {
		return nil, err
	}
	reply, err := parseReply(p)
	if err != nil {
		return nil, err
	}
	if reply.MessageID != 0 {
		target := c.find(reply.MessageID)
		switch {
		case target == nil && !reply.AllowSendingWithoutReply:
			return nil, badRequest("message to be replied not found")
		case target == nil:
			reply.MessageID = 0
		case thread == 0:
			thread = target.thread // a reply lands in the topic of what it answers
		}
	}
	ct, err := parseContent(p)
	if err != nil {
		return nil, err
	}
	markup, err := parseMarkup(p)
	if err != nil {
		return nil, err
	}
	if err := s.limitLocked(c); err != nil {
		return nil, err
	}
	m := c.add(&message{
		from:       s.world.bot,
		thread:     thread,
		text:       ct.text,
		parseMode:  ct.parseMode,
		parsed:     ct.parsed,
		previews:   ct.previews,
		replyTo:    reply.MessageID,
		replyShown: reply.MessageID,
		markup:     markup,
	})
	if m.replyShown == 0 {
		m.replyShown = thread // in a topic, Telegram shows the topic's root
	}
	return m.wire(true), nil
}

// editableLocked finds the bot's own message named by chat_id and message_id.
func (s *Server) editableLocked(p params) (*chat, *message, error) {
	c, err := s.chatLocked(p)
	if err != nil {
		return nil, nil, err
	}
	if p["inline_message_id"] != "" {
		return nil, nil, badRequest("MESSAGE_ID_INVALID") // inline mode is not modelled
	}
	id, err := p.int("message_id")
	if err != nil {
		return nil, nil, err
	}
	if id == 0 {
		return nil, nil, badRequest("message identifier is not specified")
	}
	m := c.find(id)
	if m == nil {
		return nil, nil, badRequest("message to edit not found")
	}
	if m.from != s.world.bot {
		return nil, nil, badRequest("message can't be edited")
	}
	return c, m, nil
}

const notModified = "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"

// editMessageText replaces text and keyboard: an edit without reply_markup
// removes the keyboard, as on Telegram.
func (s *Server) editMessageText(_ context.Context, p params) (any, error) {
	c, m, err := s.editableLocked(p)
	if err != nil {
		return nil, err
	}
	ct, err := parseContent(p)
	if err != nil {
		return nil, err
	}
	markup, err := parseMarkup(p)
	if err != nil {
		return nil, err
	}
	if sameContent(m, ct) && sameMarkup(m.markup, markup) {
		return nil, badRequest(notModified)
	}
	if err := s.limitLocked(c); err != nil {
		return nil, err
	}
	m.text, m.parseMode, m.parsed, m.markup, m.previews = ct.text, ct.parseMode, ct.parsed, markup, ct.previews
	m.edits++
	m.editDate = time.Now().Unix()
	return m.wire(true), nil
}

func (s *Server) editMessageReplyMarkup(_ context.Context, p params) (any, error) {
	c, m, err := s.editableLocked(p)
	if err != nil {
		return nil, err
	}
	markup, err := parseMarkup(p)
	if err != nil {
		return nil, err
	}
	if sameMarkup(m.markup, markup) {
		return nil, badRequest(notModified)
	}
	if err := s.limitLocked(c); err != nil {
		return nil, err
	}
	m.markup = markup
	m.edits++
	m.editDate = time.Now().Unix()
	return m.wire(true), nil
}

func (s *Server) deleteMessage(_ context.Context, p params) (any, error) {
	c, err := s.chatLocked(p)
	if err != nil {
		return nil, err
	}
	id, err := p.int("message_id")
	if err != nil {
		return nil, err
	}
	m := c.find(id)
	if m == nil {
		return nil, badRequest("message to delete not found")
	}
	m.deleted = true
	return true, nil
}

// Draft is a sendMessageDraft call that succeeded: a streamed preview that
// does not become a message.
type Draft struct {
	DraftID   int64
	Topic     int
	Text      string // as sent (HTML source when ParseMode is HTML)
	ParseMode string
	Visible   string // what a person reads
}

func (s *Server) sendMessageDraft(_ context.Context, p params) (any, error) {
	c, err := s.chatLocked(p)
	if err != nil {
		return nil, err
	}
	if !c.private() {
		return nil, badRequest("TEXTDRAFT_PEER_INVALID")
	}
	if err := s.reachableLocked(c); err != nil {
		return nil, err
	}
	draftID, err := p.int64("draft_id")
	if err != nil {
		return nil, err
	}
	if draftID == 0 {
		return nil, badRequest("draft_id must be non-zero")
	}
	thread, err := threadIn(c, p)
	if err != nil {
		return nil, err
	}
	ct, err := parseContent(p)
	if err != nil {
		return nil, err
	}
	if err := s.limitLocked(c); err != nil {
		return nil, err
	}
	c.drafts = append(c.drafts, Draft{
		DraftID: draftID, Topic: thread, Text: ct.text, ParseMode: ct.parseMode, Visible: ct.parsed.Visible,
	})
	return true, nil
}
