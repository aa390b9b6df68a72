package discord_test

import (
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/chat"
)

// TestIsMember checks chat.MemberChecker against discordtest: guild
// membership by GET /guilds/{id}/members/{id}, a DM's one person, and the
// failures that are no answer.
func TestIsMember(t *testing.T) {
	const (
		guild    = "700000000000000009"
		channel  = "600000000000000009"
		alice    = "300000000000000001"
		bob      = "300000000000000002"
		carol    = "300000000000000003"
		stranger = "300000000000000099" // a user the fake never heard of
		noGuild  = "700000000000000098" // a guild the bot is not in
	)
	srv := discordtest.NewServer(discordtest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	srv.AddGuild(guild, "g")
	srv.AddChannel(guild, channel, "general")
	srv.AddUser(alice, "alice")
	srv.AddUser(bob, "bob")
	srv.AddUser(carol, "carol")
	srv.RemoveMember(guild, bob)
	dmAlice := srv.DMChannel(alice)
	dmCarol := srv.DMChannel(carol)

	ad, err := discord.New(discord.Config{Token: srv.Token(), APIURL: srv.APIURL(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	root := srv.Post(discordtest.Incoming{Channel: channel, Author: alice, Content: "remind bob at 5"})
	inChannel := chat.Thread{Platform: "discord", Space: guild, Chat: channel, ID: root}
	inThread := chat.Thread{Platform: "discord", Space: guild, Chat: channel, ID: "600000000000000010"}
	// carol's DM is known to the adapter from the DM the bot opened with
	// her; alice's only to Discord.
	if err := ad.SendPrivate(t.Context(), chat.Thread{}, chat.User{Platform: "discord", ID: carol}, chat.Out{Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	dm := func(ch string) chat.Thread { return chat.Thread{Platform: "discord", Chat: ch} }
	member := "GET /guilds/" + guild + "/members/"

	for _, tc := range []struct {
		name   string
		setup  func()
		thread chat.Thread
		user   string
		want   bool
		// wantErr checks the error (nil: none expected).
		wantErr func(error) bool
		// calls are the REST calls it makes ("METHOD path").
		calls []string
	}{
		{name: "member", thread: inChannel, user: alice, want: true, calls: []string{member + alice}},
		{name: "member, in a thread", thread: inThread, user: alice, want: true, calls: []string{member + alice}},
		{name: "the bot", thread: inChannel, user: srv.BotID(), want: true, calls: []string{member + srv.BotID()}},
		{name: "removed member", thread: inChannel, user: bob, calls: []string{member + bob}},
		{name: "member again", setup: func() { srv.AddMember(guild, bob) }, thread: inChannel, user: bob, want: true,
			calls: []string{member + bob}},
		{name: "left now", setup: func() { srv.RemoveMember(guild, alice) }, thread: inChannel, user: alice,
			calls: []string{member + alice}},
		{name: "unknown user", thread: inChannel, user: stranger, calls: []string{member + stranger}},
		{name: "DM, its person, asked of Discord", thread: dm(dmAlice), user: alice, want: true,
			calls: []string{"GET /channels/" + dmAlice}},
		{name: "DM, its person, remembered", thread: dm(dmAlice), user: alice, want: true},
		{name: "DM, someone else", thread: dm(dmAlice), user: carol},
		{name: "DM the bot opened", thread: dm(dmCarol), user: carol, want: true},
		{name: "DM, the bot is not its person", thread: dm(dmCarol), user: srv.BotID()},
		{name: "empty user", thread: inChannel, user: ""},
		{name: "not a snowflake", thread: inChannel, user: "../../channels/" + channel},
		{name: "empty user in a DM", thread: dm(dmAlice), user: ""},
		{name: "429", setup: func() { srv.RateLimitNext("GET /guilds/{id}/members/{id}", 3*time.Second) },
			thread: inChannel, user: alice, calls: []string{member + alice},
			wantErr: func(err error) bool {
				rl, ok := errors.AsType[*chat.RateLimitError](err)
				return ok && rl.RetryAfter == 3*time.Second
			}},
		{name: "429 on a DM's channel", setup: func() { srv.RateLimitNext("GET /channels/{id}", time.Second) },
			thread: dm(srv.DMChannel(bob)), user: bob, calls: []string{"GET /channels/" + srv.DMChannel(bob)},
			wantErr: func(err error) bool { _, ok := errors.AsType[*chat.RateLimitError](err); return ok }},
		{name: "a guild the bot is not in", thread: chat.Thread{Platform: "discord", Space: noGuild, Chat: channel, ID: root},
			user: alice, calls: []string{"GET /guilds/" + noGuild + "/members/" + alice},
			wantErr: func(err error) bool {
				_, rl := errors.AsType[*chat.RateLimitError](err)
				return !rl && strings.Contains(err.Error(), "Unknown Guild")
			}},
		{name: "another platform", thread: chat.Thread{Platform: "slack", Space: guild, Chat: channel}, user: alice,
			wantErr: func(err error) bool { return err != nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup()
			}
			before := len(srv.Calls())
			got, err := ad.IsMember(t.Context(), tc.thread, tc.user)
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("IsMember = %v, %v; want %v", got, err, tc.want)
			case tc.wantErr != nil && (err == nil || !tc.wantErr(err)):
				t.Fatalf("IsMember = %v, %v; want another error", got, err)
			case got != tc.want:
				t.Errorf("IsMember = %v, want %v", got, tc.want)
			}
			var calls []string
			for _, c := range srv.Calls()[before:] {
				calls = append(calls, c.Method+" "+c.Path)
			}
			if strings.Join(calls, "; ") != strings.Join(tc.calls, "; ") {
				t.Errorf("calls %q, want %q", calls, tc.calls)
			}
		})
	}
}

// TestIsMemberFromADirectMessage: a person's DM message tells the adapter
// whom the DM is with, so no call is needed for it.
func TestIsMemberFromADirectMessage(t *testing.T) {
	srv := discordtest.NewServer(discordtest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	const alice = "300000000000000001"
	srv.AddUser(alice, "alice")
	dm := srv.DMChannel(alice)
	ad, h := startRun(t, srv, "")
	waitFor(t, srv, "the gateway", srv.Connected)

	srv.Post(discordtest.Incoming{Channel: dm, Author: alice, Content: "remind me at 5"})
	m := h.waitMessage(t, "remind me at 5")
	before := len(srv.Calls())
	if ok, err := ad.IsMember(t.Context(), m.Thread, alice); !ok || err != nil {
		t.Errorf("IsMember(DM, its person) = %v, %v", ok, err)
	}
	if ok, err := ad.IsMember(t.Context(), m.Thread, "300000000000000002"); ok || err != nil {
		t.Errorf("IsMember(DM, someone else) = %v, %v", ok, err)
	}
	if calls := srv.Calls()[before:]; len(calls) != 0 {
		t.Errorf("calls %+v, want none", calls)
	}
}
