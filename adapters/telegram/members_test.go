package telegram

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/chat"
)

func TestIsMember(t *testing.T) {
	const (
		group      = "-100500"
		alice, bob = "101", "102"
		aliceID    = int64(101)
		bobID      = int64(102)
		groupID    = int64(-100500)
		strangerID = "103" // a user Telegram never showed the bot
		migratedTo = int64(-100900)
	)
	in := chat.Thread{Platform: "telegram", Chat: group, ID: "7"}
	tests := []struct {
		name   string
		thread chat.Thread
		user   string
		setup  func(srv *telegramtest.Server)
		want   bool
		err    string // the error mentions it; "" means none
		limit  bool   // the error is a *chat.RateLimitError
		calls  int    // getChatMember calls made
	}{
		{name: "posted in the group", thread: in, user: alice, want: true, calls: 1},
		{name: "never in the group", thread: in, user: bob, calls: 1},
		{name: "joined", thread: in, user: bob, setup: func(srv *telegramtest.Server) { srv.Join(groupID, bobID) }, want: true, calls: 1},
		{name: "left", thread: in, user: alice, setup: func(srv *telegramtest.Server) { srv.Leave(groupID, aliceID) }, calls: 1},
		{name: "kicked", thread: in, user: alice, setup: func(srv *telegramtest.Server) { srv.Kick(groupID, aliceID) }, calls: 1},
		{name: "creator", thread: in, user: bob, setup: func(srv *telegramtest.Server) {
			srv.SetMemberStatus(groupID, bobID, telegramtest.StatusCreator)
		}, want: true, calls: 1},
		{name: "administrator in a topic", thread: chat.Thread{Chat: group, ID: "topic:5"}, user: bob, setup: func(srv *telegramtest.Server) {
			srv.SetMemberStatus(groupID, bobID, telegramtest.StatusAdministrator)
		}, want: true, calls: 1},
		{name: "restricted, still in", thread: in, user: bob, setup: func(srv *telegramtest.Server) {
			srv.SetMemberStatus(groupID, bobID, telegramtest.StatusRestricted)
		}, want: true, calls: 1},
		{name: "restricted, gone", thread: in, user: bob, setup: func(srv *telegramtest.Server) {
			srv.SetMemberStatus(groupID, bobID, telegramtest.StatusRestricted)
			srv.Leave(groupID, bobID)
		}, calls: 1},
		{name: "user not found", thread: in, user: strangerID, calls: 1},
		{name: "unknown chat", thread: chat.Thread{Chat: "-100777"}, user: alice, err: "chat not found", calls: 1},
		{name: "bot kicked", thread: in, user: alice, setup: func(srv *telegramtest.Server) { srv.Kick(groupID, srv.BotID()) }, err: "kicked", calls: 1},
		{name: "rate limited", thread: in, user: alice, setup: func(srv *telegramtest.Server) {
			srv.RateLimitNext("getChatMember", 3*time.Second)
		}, limit: true, calls: 1},
		{name: "group became a supergroup", thread: in, user: alice, setup: func(srv *telegramtest.Server) {
			srv.MigrateGroup(groupID, migratedTo)
		}, want: true, calls: 2},
		{name: "private chat's person", thread: chat.Thread{Chat: alice}, user: alice, want: true},
		{name: "someone else in a private chat", thread: chat.Thread{Chat: alice}, user: bob},
		{name: "empty user", thread: in, user: ""},
		{name: "anonymous admin", thread: in, user: "chat:" + group},
		{name: "not a user id", thread: in, user: "alice", err: "not a person's id"},
		{name: "a group's id", thread: in, user: group, err: "not a person's id"},
		{name: "no chat", thread: chat.Thread{Platform: "telegram"}, user: alice, err: "no chat id"},
		{name: "another platform", thread: chat.Thread{Platform: "slack", Chat: "C1"}, user: alice, err: "another platform"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, a := newFileFake(t)
			srv.AddUser(aliceID, "Alice", "alice")
			srv.AddUser(bobID, "Bob", "bob")
			srv.AddForum(groupID, "Team")
			srv.AddTopic(groupID, "Plans")
			srv.Post(telegramtest.Incoming{Chat: groupID, From: aliceID, Text: "hello"})
			if tt.setup != nil {
				tt.setup(srv)
			}

			got, err := a.IsMember(t.Context(), tt.thread, tt.user)
			if got != tt.want {
				t.Errorf("IsMember = %v, want %v (err %v)", got, tt.want, err)
			}
			var rl *chat.RateLimitError
			switch {
			case tt.limit:
				if !errors.As(err, &rl) || rl.RetryAfter != 3*time.Second {
					t.Errorf("error %v, want a *chat.RateLimitError of 3s", err)
				}
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want one mentioning %q", err, tt.err)
				}
			case err != nil:
				t.Errorf("error %v", err)
			}
			checkNoToken(t, err)
			calls := srv.CallsTo("getChatMember")
			if len(calls) != tt.calls {
				t.Fatalf("%d getChatMember calls, want %d", len(calls), tt.calls)
			}
			for i, c := range calls {
				if c.Params["user_id"] != tt.user || i == 0 && c.Params["chat_id"] != tt.thread.Chat {
					t.Errorf("call %d params %v", i, c.Params)
				}
				if c.Status != http.StatusOK && tt.err == "" && !tt.limit && i == len(calls)-1 && tt.user != strangerID {
					t.Errorf("call %d answered %d %s", i, c.Status, c.Description)
				}
			}
		})
	}
}
