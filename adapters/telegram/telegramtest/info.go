package telegramtest

import (
	"context"
	"slices"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

type wireBot struct {
	wireUser
	CanJoinGroups           bool `json:"can_join_groups"`
	CanReadAllGroupMessages bool `json:"can_read_all_group_messages"`
	SupportsInlineQueries   bool `json:"supports_inline_queries"`
}

func (s *Server) getMe(_ context.Context, _ params) (any, error) {
	return wireBot{wireUser: s.world.bot.wire(), CanJoinGroups: true}, nil
}

func (s *Server) getChat(_ context.Context, p params) (any, error) {
	c, err := s.chatLocked(p)
	if err != nil {
		return nil, err
	}
	return c.wire(), nil
}

func validAction(a string) bool {
	switch a {
	case "typing", "upload_photo", "record_video", "upload_video", "record_voice", "upload_voice",
		"upload_document", "choose_sticker", "find_location", "record_video_note", "upload_video_note":
		return true
	}
	return false
}

func (s *Server) sendChatAction(_ context.Context, p params) (any, error) {
	c, err := s.chatLocked(p)
	if err != nil {
		return nil, err
	}
	if err := s.reachableLocked(c); err != nil {
		return nil, err
	}
	if _, err := threadIn(c, p); err != nil {
		return nil, err
	}
	action := p["action"]
	if !validAction(action) {
		return nil, badRequest("wrong parameter action in request")
	}
	c.actions = append(c.actions, action)
	return true, nil
}

// CallbackAnswer is a successful answerCallbackQuery.
type CallbackAnswer struct {
	QueryID   string
	UserID    int64 // who clicked
	Text      string
	ShowAlert bool
}

// maxCallbackAnswer is the limit on answerCallbackQuery's text, in
// characters.
const maxCallbackAnswer = 200

func (s *Server) answerCallbackQuery(_ context.Context, p params) (any, error) {
	id := p["callback_query_id"]
	q, ok := s.queries[id]
	if !ok || q.answered {
		return nil, badRequest("query is too old and response timeout expired or query ID is invalid")
	}
	text := p["text"]
	if utf16Len(text) > maxCallbackAnswer {
		return nil, badRequest("MESSAGE_TOO_LONG")
	}
	q.answered = true
	s.answers = append(s.answers, CallbackAnswer{QueryID: id, UserID: q.userID, Text: text, ShowAlert: p.bool("show_alert")})
	return true, nil
}

const (
	maxCommands       = 100
	maxCommandName    = 32
	maxCommandDescLen = 256
)

func validCommandName(name string) bool {
	if name == "" || len(name) > maxCommandName {
		return false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func (s *Server) setMyCommands(_ context.Context, p params) (any, error) {
	var cmds []tgbotapi.BotCommand
	ok, err := p.json("commands", &cmds, "commands")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, badRequest("parameter \"commands\" is required")
	}
	if len(cmds) > maxCommands {
		return nil, badRequest("BOT_COMMANDS_TOO_MUCH")
	}
	for _, c := range cmds {
		if !validCommandName(c.Command) {
			return nil, badRequest("BOT_COMMAND_INVALID")
		}
		if n := utf16Len(c.Description); n == 0 || n > maxCommandDescLen {
			return nil, badRequest("BOT_COMMAND_DESCRIPTION_INVALID")
		}
	}
	var scope map[string]any
	if _, err := p.json("scope", &scope, "bot command scope"); err != nil {
		return nil, err
	}
	s.commands = slices.Clone(cmds)
	return true, nil
}

func (s *Server) deleteMyCommands(_ context.Context, _ params) (any, error) {
	s.commands = nil
	return true, nil
}

func (s *Server) getMyCommands(_ context.Context, _ params) (any, error) {
	return append([]tgbotapi.BotCommand{}, s.commands...), nil
}
