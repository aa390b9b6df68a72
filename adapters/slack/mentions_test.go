package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack/slackutilsx"

	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
)

// TestMentionsPingOnlyThem: a message pings exactly its Mentions, written
// <@ID> before the text and never escaped, in mrkdwn, in plain text and in
// blocks; mention syntax in the text itself pings nobody.
func TestMentionsPingOnlyThem(t *testing.T) {
	ana := chat.User{Platform: "slack", ID: "UANA", Name: "Ana"}
	bo := chat.User{Platform: "slack", ID: "UBO", Name: "Bo"}
	tests := []struct {
		name  string
		out   chat.Out
		text  string
		pings []string
	}{
		{"mentions, each once", chat.Out{Text: "standup in **5** minutes", Mentions: []chat.User{ana, bo, ana}},
			"<@UANA> <@UBO> standup in *5* minutes", []string{"UANA", "UBO"}},
		{"plain keeps them", chat.Out{Text: "**standup** <soon>", Plain: true, Mentions: []chat.User{bo}},
			"<@UBO> standup &lt;soon&gt;", []string{"UBO"}},
		{"in blocks too", chat.Out{Text: "standup", Mentions: []chat.User{ana}, Buttons: []chat.Button{{Label: "Snooze", Data: "s:1"}}},
			"<@UANA> standup", []string{"UANA"}},
		{"only mentions", chat.Out{Mentions: []chat.User{ana}}, "<@UANA>", []string{"UANA"}},
		{"mention syntax in the text", chat.Out{Text: "<@UBO> <@UANA|ana> <!channel> @everyone"},
			"&lt;@UBO&gt; &lt;@UANA|ana&gt; &lt;!channel&gt; @\u200deveryone", nil},
		{"mention syntax in plain text", chat.Out{Text: "<@UBO> <!here>", Plain: true},
			"&lt;@UBO&gt; &lt;!here&gt;", nil},
		{"mention syntax beside a mention", chat.Out{Text: "<@UBO> too", Mentions: []chat.User{ana}},
			"<@UANA> &lt;@UBO&gt; too", []string{"UANA"}},
		{"an id Slack cannot name", chat.Out{Text: "hi", Mentions: []chat.User{{ID: "UANA><!channel", Name: "<Ana>"}, {Name: "everyone"}, {ID: "u1"}}},
			"@&lt;Ana&gt; @\u200deveryone @u1 hi", nil},
	}
	srv := slacktest.NewServer(slacktest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	srv.AddUser("UANA", "Ana")
	srv.AddUser("UBO", "Bo")
	srv.AddChannel("CTEAM", "team", slacktest.Public)
	ad := newFileAdapter(t, srv)
	th := chat.Thread{Platform: "slack", Space: srv.TeamID(), Chat: "CTEAM"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, err := ad.Send(t.Context(), th, tt.out)
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			var got slacktest.Message
			for _, m := range srv.Messages("CTEAM") {
				if m.TS == ref.ID {
					got = m
				}
			}
			if got.Text != tt.text {
				t.Errorf("text = %q, want %q", got.Text, tt.text)
			}
			if diff := cmp.Diff(tt.pings, got.MentionedUsers()); diff != "" {
				t.Errorf("pinged (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNoMentionsRenderAsBefore: without Mentions (nil or empty) the text
// is what it was before they existed.
func TestNoMentionsRenderAsBefore(t *testing.T) {
	for _, md := range []string{
		"", "**done** with `make`", "<@U1> <!channel> @here & more", "> quote\n- item", "[x](https://example.com/@everyone)",
	} {
		for _, plain := range []bool{false, true} {
			want := format.Slack(md)
			if plain {
				want = format.NeutralizeMentions(slackutilsx.EscapeMessage(format.Plain(md)))
			}
			for _, mentions := range [][]chat.User{nil, {}} {
				if got := renderText(chat.Out{Text: md, Plain: plain, Mentions: mentions}); got != want {
					t.Errorf("renderText(%q, plain %v, mentions %v) = %q, want %q", md, plain, mentions, got, want)
				}
			}
		}
	}
}

// TestUserZone: the zone of a person's profile, from the users.info that
// gives their name, asked once.
func TestUserZone(t *testing.T) {
	srv := slacktest.NewServer(slacktest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	srv.AddUserWithZone("UANA", "Ana", "Europe/Berlin")
	srv.AddUser("UBO", "Bo")
	ad := newFileAdapter(t, srv)
	var zt chat.ZoneTeller = ad
	ctx := t.Context()
	tests := []struct {
		user    chat.User
		zone    string
		wantErr bool
	}{
		{chat.User{Platform: "slack", ID: "UANA"}, "Europe/Berlin", false},
		{chat.User{Platform: "slack", ID: "UANA", Name: "Ana"}, "Europe/Berlin", false}, // cached
		{chat.User{ID: "UBO"}, "", false},
		{chat.User{Platform: "slack"}, "", false},
		{chat.User{Platform: "slack", ID: "UNOBODY"}, "", true},
		{chat.User{Platform: "discord", ID: "UANA"}, "", true},
	}
	for _, tt := range tests {
		zone, err := zt.UserZone(ctx, tt.user)
		if zone != tt.zone || (err != nil) != tt.wantErr {
			t.Errorf("UserZone(%+v) = %q, %v; want %q, error %v", tt.user, zone, err, tt.zone, tt.wantErr)
		}
	}
	if n := len(srv.CallsTo("users.info")); n != 3 {
		t.Errorf("%d users.info calls, want 3: one per person asked, a failure included", n)
	}
	if p, err := ad.users.get(ctx, "UANA"); err != nil || p.name != "Ana" || len(srv.CallsTo("users.info")) != 3 {
		t.Errorf("the name lookup = %+v, %v; want Ana from the cached profile", p, err)
	}
}

// TestUsersInfoBudget: users.info is paced on the adapter's clock: a burst
// of lookups, then one per interval; a lookup the budget cannot take goes
// without the name at once rather than wait.
func TestUsersInfoBudget(t *testing.T) {
	srv := slacktest.NewServer(slacktest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	ad, err := New(Config{BotToken: srv.BotToken(), AppToken: srv.AppToken(), APIURL: srv.URL + "/",
		Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return now },
		Sleep: func(context.Context, time.Duration) error { t.Error("a lookup waited for the budget"); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	lookup := func(i int) error {
		id := fmt.Sprintf("U%03d", i)
		srv.AddUser(id, "person "+id)
		_, err := ad.lookupProfile(ctx, id)
		return err
	}
	// Like a streaming frame, a lookup leaves the bucket's last token to
	// calls that must be made.
	burst := usersInfoBurst - 1
	for i := range burst {
		if err := lookup(i); err != nil {
			t.Fatalf("lookup %d of the burst: %v", i+1, err)
		}
	}
	if err := lookup(burst); !errors.Is(err, errUsersInfoBudget) {
		t.Fatalf("the lookup after the burst = %v, want the budget refusal", err)
	}
	now = now.Add(usersInfoEvery)
	if err := lookup(burst + 1); err != nil {
		t.Fatalf("a lookup one interval later: %v", err)
	}
	if err := lookup(burst + 2); !errors.Is(err, errUsersInfoBudget) {
		t.Fatalf("a second lookup in that interval = %v, want the budget refusal", err)
	}
	if n := len(srv.CallsTo("users.info")); n != burst+1 {
		t.Errorf("%d users.info calls, want %d", n, burst+1)
	}
}
