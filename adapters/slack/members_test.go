package slack

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/chat"
)

func TestIsMember(t *testing.T) {
	const (
		general = "C0000GEN"
		secret  = "G0000SEC"
		dm      = "D0000ALICE"
		alice   = "U0000ALICE"
		bob     = "U0000BOB"
	)
	// big has more members than two pages of 10; carol is on the third.
	big := "C0000BIG"
	var crowd []string
	for i := range 25 {
		crowd = append(crowd, fmt.Sprintf("U1%04d", i))
	}
	carol := crowd[len(crowd)-1]

	tests := []struct {
		name   string
		thread chat.Thread
		user   string
		setup  func(srv *slacktest.Server)
		want   bool
		err    string // the error mentions it; "" means none
		limit  bool   // the error is a *chat.RateLimitError
		calls  int    // conversations.members calls made
	}{
		{name: "member who posted", thread: chat.Thread{Platform: "slack", Chat: general, ID: "1.0"}, user: alice, want: true, calls: 1},
		{name: "not a member", thread: chat.Thread{Chat: general}, user: bob, calls: 1},
		{name: "joined", thread: chat.Thread{Chat: general}, user: bob, setup: func(srv *slacktest.Server) { srv.Join(general, bob) }, want: true, calls: 1},
		{name: "left", thread: chat.Thread{Chat: general}, user: alice, setup: func(srv *slacktest.Server) { srv.Leave(general, alice) }, calls: 1},
		{name: "dm's person", thread: chat.Thread{Chat: dm}, user: alice, want: true, calls: 1},
		{name: "someone else in a dm", thread: chat.Thread{Chat: dm}, user: bob, calls: 1},
		{name: "private channel member", thread: chat.Thread{Chat: secret}, user: bob, setup: func(srv *slacktest.Server) { srv.Join(secret, bob) }, want: true, calls: 1},
		{name: "private channel the bot left", thread: chat.Thread{Chat: secret}, user: bob,
			setup: func(srv *slacktest.Server) { srv.Join(secret, bob); srv.Leave(secret, srv.BotUserID()) }, err: "channel_not_found", calls: 1},
		{name: "unknown channel", thread: chat.Thread{Chat: "C0000NONE"}, user: alice, err: "channel_not_found", calls: 1},
		{name: "rate limited", thread: chat.Thread{Chat: general}, user: alice,
			setup: func(srv *slacktest.Server) { srv.FailNextRateLimited("conversations.members", 1, 3*time.Second) }, limit: true, calls: 1},
		{name: "third page", thread: chat.Thread{Chat: big}, user: carol, setup: func(srv *slacktest.Server) { srv.Join(big, crowd...) }, want: true, calls: 3},
		{name: "first page", thread: chat.Thread{Chat: big}, user: crowd[0], setup: func(srv *slacktest.Server) { srv.Join(big, crowd...) }, want: true, calls: 1},
		{name: "in no page", thread: chat.Thread{Chat: big}, user: alice, setup: func(srv *slacktest.Server) { srv.Join(big, crowd...) }, calls: 3},
		{name: "rate limited on page two", thread: chat.Thread{Chat: big}, user: carol, setup: func(srv *slacktest.Server) {
			srv.Join(big, crowd...)
			srv.SetLimit("conversations.members", slacktest.Limit{PerMinute: 1, Burst: 1})
		}, limit: true, calls: 2},
		{name: "empty user", thread: chat.Thread{Chat: general}, user: ""},
		{name: "no channel", thread: chat.Thread{Platform: "slack"}, user: alice, err: "no channel"},
		{name: "another platform", thread: chat.Thread{Platform: "telegram", Chat: "42"}, user: alice, err: "another platform"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := slacktest.NewServer()
			t.Cleanup(srv.Close)
			srv.AddUser(alice, "alice")
			srv.AddUser(bob, "bob")
			srv.AddChannel(general, "general", slacktest.Public)
			srv.AddChannel(secret, "secret", slacktest.Private)
			srv.AddChannel(dm, "alice", slacktest.IM)
			srv.AddChannel(big, "big", slacktest.Public)
			srv.PostUserMessage(general, alice, "hello", "")
			srv.PostUserMessage(dm, alice, "hi", "")
			if tt.setup != nil {
				tt.setup(srv)
			}
			a, err := New(Config{BotToken: srv.BotToken(), AppToken: srv.AppToken(), APIURL: srv.URL + "/"})
			if err != nil {
				t.Fatal(err)
			}
			a.membersPage = 10

			got, err := a.IsMember(t.Context(), tt.thread, tt.user)
			if got != tt.want {
				t.Errorf("IsMember = %v, want %v (err %v)", got, tt.want, err)
			}
			var rl *chat.RateLimitError
			switch {
			case tt.limit:
				if !errors.As(err, &rl) || rl.RetryAfter < time.Second {
					t.Errorf("error %v, want a *chat.RateLimitError", err)
				}
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want one mentioning %q", err, tt.err)
				}
			case err != nil:
				t.Errorf("error %v", err)
			}
			calls := srv.CallsTo("conversations.members")
			if len(calls) != tt.calls {
				t.Errorf("%d conversations.members calls, want %d", len(calls), tt.calls)
			}
			for i, c := range calls {
				if c.Params.Get("channel") != tt.thread.Chat || c.Params.Get("limit") != "10" || (i == 0) != (c.Params.Get("cursor") == "") {
					t.Errorf("call %d params %v", i, c.Params)
				}
			}
		})
	}
}
