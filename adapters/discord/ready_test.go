package discord_test

import (
	"log/slog"
	"testing"

	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/adapters/discord/discordtest"
)

// TestConnected: not before Run, connected from READY, again after a
// dropped connection resumes, and not once Run returned.
func TestConnected(t *testing.T) {
	srv := discordtest.NewServer(discordtest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	srv.AddGuild(confGuild, "g")
	ad, err := discord.New(discord.Config{Token: srv.Token(), APIURL: srv.APIURL(),
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if ad.Connected() {
		t.Fatal("connected before Run")
	}
	stop := runUntilStopped(t, ad, newRunHandler())
	// Heartbeats change the fake every second, so the condition is
	// checked again even after the last dispatch.
	waitFor(t, srv, "connected", ad.Connected)
	srv.DropConnection()
	waitFor(t, srv, "resumed", func() bool { return srv.Resumes() > 0 && ad.Connected() })
	stop()
	if ad.Connected() {
		t.Fatal("connected after Run returned")
	}
}
