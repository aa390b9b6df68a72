package telegramtest_test

import (
	"errors"
	"net/http"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
)

func getChatMember(bot *tgbotapi.BotAPI, chat, user int64) (tgbotapi.ChatMember, error) {
	return bot.GetChatMember(tgbotapi.GetChatMemberConfig{ChatConfigWithUser: tgbotapi.ChatConfigWithUser{ChatID: chat, UserID: user}})
}

// TestGetChatMember: the real client decodes the fake's ChatMember
// objects, whose status follows what people did in the group.
func TestGetChatMember(t *testing.T) {
	const dave int64 = 45 // never seen by the bot
	tests := []struct {
		name     string
		setup    func(srv *telegramtest.Server)
		chat     int64
		user     int64
		status   string
		isMember bool // ChatMember.IsMember, meaningful for "restricted"
		code     int  // an error with this code, 0 none
		desc     string
	}{
		{name: "posted in the group", setup: func(srv *telegramtest.Server) {
			srv.Post(telegramtest.Incoming{Chat: group, From: alice, Text: "hi"})
		}, chat: group, user: alice, status: "member"},
		{name: "never in the group", chat: group, user: bob, status: "left"},
		{name: "joined", setup: func(srv *telegramtest.Server) { srv.Join(group, bob) }, chat: group, user: bob, status: "member"},
		{name: "left", setup: func(srv *telegramtest.Server) {
			srv.Post(telegramtest.Incoming{Chat: group, From: alice, Text: "bye"})
			srv.Leave(group, alice)
		}, chat: group, user: alice, status: "left"},
		{name: "kicked", setup: func(srv *telegramtest.Server) { srv.Join(group, bob); srv.Kick(group, bob) }, chat: group, user: bob, status: "kicked"},
		{name: "creator", setup: func(srv *telegramtest.Server) {
			srv.SetMemberStatus(group, alice, telegramtest.StatusCreator)
		}, chat: group, user: alice, status: "creator"},
		{name: "administrator", setup: func(srv *telegramtest.Server) {
			srv.SetMemberStatus(forum, alice, telegramtest.StatusAdministrator)
		}, chat: forum, user: alice, status: "administrator"},
		{name: "restricted member", setup: func(srv *telegramtest.Server) {
			srv.SetMemberStatus(group, bob, telegramtest.StatusRestricted)
		}, chat: group, user: bob, status: "restricted", isMember: true},
		{name: "restricted and gone", setup: func(srv *telegramtest.Server) {
			srv.SetMemberStatus(group, bob, telegramtest.StatusRestricted)
			srv.Leave(group, bob)
		}, chat: group, user: bob, status: "restricted"},
		{name: "restricted and back", setup: func(srv *telegramtest.Server) {
			srv.SetMemberStatus(group, bob, telegramtest.StatusRestricted)
			srv.Leave(group, bob)
			srv.Post(telegramtest.Incoming{Chat: group, From: bob, Text: "back"})
		}, chat: group, user: bob, status: "restricted", isMember: true},
		{name: "the bot", chat: group, user: 0, status: "member"},
		{name: "private chat's person", chat: alice, user: alice, status: "member"},
		{name: "unknown user", chat: group, user: dave, code: http.StatusBadRequest, desc: "Bad Request: user not found"},
		{name: "bad user id", chat: group, user: -5, code: http.StatusBadRequest, desc: "Bad Request: invalid user_id specified"},
		{name: "unknown chat", chat: -999, user: alice, code: http.StatusBadRequest, desc: "Bad Request: chat not found"},
		{name: "bot kicked", setup: func(srv *telegramtest.Server) { srv.Kick(group, srv.BotID()) }, chat: group, user: alice,
			code: http.StatusForbidden, desc: "Forbidden: bot was kicked from the supergroup chat"},
		{name: "rate limited", setup: func(srv *telegramtest.Server) {
			srv.Join(group, alice)
			srv.RateLimitNext("getChatMember", 0)
		}, chat: group, user: alice, code: http.StatusTooManyRequests, desc: "Too Many Requests: retry after 1"},
		{name: "migrated", setup: func(srv *telegramtest.Server) {
			srv.Join(group, alice)
			srv.MigrateGroup(group, -1009)
		}, chat: -1009, user: alice, status: "member"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, bot := newServer(t)
			if tt.setup != nil {
				tt.setup(srv)
			}
			user := tt.user
			if user == 0 {
				user = srv.BotID()
			}
			m, err := getChatMember(bot, tt.chat, user)
			if tt.code != 0 {
				var e *tgbotapi.Error
				if !errors.As(err, &e) || e.Code != tt.code || e.Message != tt.desc {
					t.Fatalf("error %#v, want %d %q", err, tt.code, tt.desc)
				}
				if tt.code == http.StatusTooManyRequests && e.RetryAfter != 1 {
					t.Errorf("retry_after %d", e.RetryAfter)
				}
				return
			}
			if err != nil {
				t.Fatalf("getChatMember: %v", err)
			}
			if m.Status != tt.status || m.User == nil || m.User.ID != user || (tt.status == "restricted" && m.IsMember != tt.isMember) {
				t.Errorf("member %+v (user %+v), want status %s, is_member %v", m, m.User, tt.status, tt.isMember)
			}
			if tt.status == "administrator" && (!m.CanManageChat || m.CanBeEdited) {
				t.Errorf("administrator rights %+v", m)
			}
			st, in := srv.Member(tt.chat, user)
			want := tt.status == "member" || tt.status == "creator" || tt.status == "administrator" || tt.isMember
			if string(st) != tt.status || in != want {
				t.Errorf("Member = %s, %v; want %s, %v", st, in, tt.status, want)
			}
		})
	}
}
