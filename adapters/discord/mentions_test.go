package discord_test

import (
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/chat"
)

// TestMentionsPingOnlyThem: a message pings exactly its Mentions, by
// Discord's rules (<@id> in the content, and the id in
// allowed_mentions.users, nothing parsed); mention syntax in the text
// itself pings nobody, in a message that mentions someone too, and in an
// edit.
func TestMentionsPingOnlyThem(t *testing.T) {
	const (
		guild   = "700000000000000001"
		channel = "710000000000000001"
		ana     = "300000000000000001"
		bo      = "300000000000000002"
	)
	srv := discordtest.NewServer(discordtest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	srv.AddGuild(guild, "team")
	srv.AddChannel(guild, channel, "general")
	srv.AddUser(ana, "ana")
	srv.AddUser(bo, "bo")
	ad, err := discord.New(discord.Config{Token: srv.Token(), APIURL: srv.APIURL(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	th := chat.Thread{Platform: "discord", Space: guild, Chat: channel}
	anaU := chat.User{Platform: "discord", ID: ana, Name: "ana"}
	boU := chat.User{Platform: "discord", ID: bo, Name: "bo"}
	none := &discordtest.AllowedMentions{Parse: []string{}}

	tests := []struct {
		name    string
		out     chat.Out
		content string
		pings   []string
		allowed *discordtest.AllowedMentions
	}{
		{"mentions, each once", chat.Out{Text: "standup in **5** minutes", Mentions: []chat.User{anaU, boU, anaU}},
			"<@" + ana + "> <@" + bo + "> standup in **5** minutes", []string{ana, bo},
			&discordtest.AllowedMentions{Parse: []string{}, Users: []string{ana, bo}}},
		{"plain keeps them", chat.Out{Text: "**standup**", Plain: true, Mentions: []chat.User{boU}},
			"<@" + bo + "> standup", []string{bo}, &discordtest.AllowedMentions{Parse: []string{}, Users: []string{bo}}},
		{"only mentions", chat.Out{Mentions: []chat.User{anaU}},
			"<@" + ana + ">", []string{ana}, &discordtest.AllowedMentions{Parse: []string{}, Users: []string{ana}}},
		{"mention syntax in the text", chat.Out{Text: "<@" + bo + "> <@!" + ana + "> <@&800000000000000001> @everyone @here"},
			"<@" + bo + "> <@!" + ana + "> <@&800000000000000001> @\u200deveryone @\u200dhere", nil, none},
		{"mention syntax beside a mention", chat.Out{Text: "<@" + bo + "> too", Mentions: []chat.User{anaU}},
			"<@" + ana + "> <@" + bo + "> too", []string{ana}, &discordtest.AllowedMentions{Parse: []string{}, Users: []string{ana}}},
		{"an id Discord cannot name", chat.Out{Text: "hi", Mentions: []chat.User{{ID: "U1", Name: "everyone"}}},
			"@\u200deveryone hi", nil, none},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, err := ad.Send(t.Context(), th, tt.out)
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			checkPings(t, srv, channel, ref.ID, tt.content, tt.pings, tt.allowed)
		})
	}

	t.Run("an edit", func(t *testing.T) {
		ref, err := ad.Send(t.Context(), th, chat.Out{Text: "draft"})
		if err != nil {
			t.Fatal(err)
		}
		if err := ad.Edit(t.Context(), ref, chat.Out{Text: "<@" + bo + "> @everyone"}); err != nil {
			t.Fatal(err)
		}
		checkPings(t, srv, channel, ref.ID, "<@"+bo+"> @\u200deveryone", nil, none)
	})
}

// checkPings finds the bot's message id in channel and checks its content,
// who it pinged and the allowed_mentions it was sent with.
func checkPings(t *testing.T, srv *discordtest.Server, channel, id, content string, pings []string, allowed *discordtest.AllowedMentions) {
	t.Helper()
	for _, m := range srv.BotMessages(channel) {
		if m.ID != id {
			continue
		}
		if m.Content != content {
			t.Errorf("content = %q, want %q", m.Content, content)
		}
		if diff := cmp.Diff(pings, m.PingedUsers()); diff != "" {
			t.Errorf("pinged (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(allowed, m.AllowedMentions); diff != "" {
			t.Errorf("allowed_mentions (-want +got):\n%s", diff)
		}
		return
	}
	t.Fatalf("no message %s in %s", id, channel)
}
