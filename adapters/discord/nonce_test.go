package discord_test

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/chat"
)

// TestSendKeyIsIdempotent: a Send with an Out.Key carries a nonce with
// enforce_nonce, so sending it again (after a timeout or a crash) returns
// the message the first made and posts nothing; without a key, or once
// Discord's nonce window has passed, a second Send is a second message.
func TestSendKeyIsIdempotent(t *testing.T) {
	tests := []struct {
		name     string
		key      string
		window   time.Duration
		messages int
	}{
		{"same key", "telegram:1:2#1", 0, 1},
		{"no key", "", 0, 2},
		{"window passed", "telegram:1:2#1", -1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []discordtest.Option{discordtest.WithoutRateLimits()}
			if tt.window != 0 {
				opts = append(opts, discordtest.WithNonceWindow(0))
			}
			srv := discordtest.NewServer(opts...)
			t.Cleanup(srv.Close)
			const alice = "300000000000000001"
			srv.AddUser(alice, "alice")
			dm := srv.DMChannel(alice)
			ad, err := discord.New(discord.Config{Token: srv.Token(), APIURL: srv.APIURL(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			th := chat.Thread{Platform: "discord", Chat: dm}
			first, err := ad.Send(t.Context(), th, chat.Out{Text: "The answer.", Key: tt.key})
			if err != nil {
				t.Fatal(err)
			}
			again, err := ad.Send(t.Context(), th, chat.Out{Text: "The answer.", Key: tt.key})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(srv.BotMessages(dm)); n != tt.messages {
				t.Errorf("%d messages, want %d", n, tt.messages)
			}
			if same := first.ID == again.ID; same != (tt.messages == 1) {
				t.Errorf("first %s, again %s", first.ID, again.ID)
			}
			if tt.messages == 1 && srv.NonceReturns() != 1 {
				t.Errorf("NonceReturns = %d, want 1", srv.NonceReturns())
			}
		})
	}
}
