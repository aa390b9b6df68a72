package discord

import (
	"testing"

	"github.com/bwmarrin/discordgo"
)

// BenchmarkNormalize: one guild message mentioning the bot, normalized
// (channel looked up in the gateway state, mention stripped, text kept
// for the thread's name).
func BenchmarkNormalize(b *testing.B) {
	a := newTestAdapter(b, newFakeREST(b), nil)
	m := &discordgo.Message{
		ID: "1300", ChannelID: testChan, GuildID: testGuild,
		Author:   &discordgo.User{ID: "301", Username: "ana"},
		Content:  "<@" + testBot + "> plan the release for Tuesday",
		Mentions: []*discordgo.User{{ID: testBot, Bot: true}},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := a.normalize(b.Context(), m); !ok {
			b.Fatal("not normalized")
		}
	}
}
