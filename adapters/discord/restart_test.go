package discord_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// runUntilStopped runs ad until the returned stop is called, which waits
// for Run to return.
func runUntilStopped(t *testing.T, ad *discord.Adapter, h chat.Handler) (stop func()) {
	t.Helper()
	stopped := untilStopped(t, func(ctx context.Context) error { return ad.Run(ctx, h) })
	return func() { _ = stopped() }
}

// untilStopped runs run until the returned stop is called, which waits
// for run to return and returns its error.
func untilStopped(t *testing.T, run func(ctx context.Context) error) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	var (
		stopped bool
		err     error
	)
	stop = func() error {
		if stopped {
			return err
		}
		stopped = true
		cancel()
		select {
		case err = <-done:
		case <-time.After(15 * time.Second):
			t.Fatal("Run did not return after its context ended")
		}
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

// TestRunRecoversAfterRestart: the gateway replays nothing to a new
// process, so what was posted while Parley was stopped reaches it only
// because State remembered the newest message handled in each channel.
// The new adapter hands over exactly the missed messages, in a guild
// channel and a DM, and none it handled before the restart.
func TestRunRecoversAfterRestart(t *testing.T) {
	srv := discordtest.NewServer(discordtest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	const (
		guild   = "700000000000000003"
		channel = "600000000000000003"
		alice   = "300000000000000003"
	)
	srv.AddGuild(guild, "g")
	srv.AddChannel(guild, channel, "general")
	srv.AddUser(alice, "alice")
	dm := srv.DMChannel(alice)
	post := func(ch, text string) string {
		return srv.Post(discordtest.Incoming{Channel: ch, Author: alice, Content: text})
	}

	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("closing the store: %v", err)
		}
	})
	newAdapter := func(logs *logWatch) *discord.Adapter {
		ad, err := discord.New(discord.Config{Token: srv.Token(), APIURL: srv.APIURL(), State: db,
			Logger: slog.New(slog.NewTextHandler(logs, nil))})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		return ad
	}

	// The first process handles a message in each place, then stops.
	first := newRunHandler()
	stop := runUntilStopped(t, newAdapter(newLogWatch()), first)
	handledInChannel := post(channel, "before, in the channel")
	handledInDM := post(dm, "before, in the DM")
	first.waitMessage(t, "before, in the channel")
	first.waitMessage(t, "before, in the DM")
	stop()
	waitFor(t, srv, "the client to leave", func() bool { return !srv.Connected() })
	for ch, want := range map[string]string{channel: guild + "|" + handledInChannel, dm: "|" + handledInDM} {
		if v, ok, err := db.Get(t.Context(), "discord:seen:"+ch); v != want || !ok || err != nil {
			t.Errorf("after the stop, State has %q, %v, %v for channel %s; want %q", v, ok, err, ch, want)
		}
	}

	// Posted while no process runs: dispatched into the old session,
	// which a new IDENTIFY does not get.
	missedInChannel := post(channel, "while stopped, in the channel")
	missedInDM := post(dm, "while stopped, in the DM")

	logs := newLogWatch()
	second := newRunHandler()
	runUntilStopped(t, newAdapter(logs), second)
	logs.waitLine(t, "recovered messages sent while Parley was stopped", "messages=2", "channels=2")

	want := map[string]chat.Thread{
		"discord:" + missedInChannel: {Platform: "discord", Space: guild, Chat: channel, ID: missedInChannel},
		"discord:" + missedInDM:      {Platform: "discord", Chat: dm},
	}
	second.mu.Lock()
	got := slices.Clone(second.msgs)
	second.mu.Unlock()
	if len(got) != len(want) {
		t.Errorf("the new process handed over %d messages, want %d: %+v", len(got), len(want), got)
	}
	for _, m := range got {
		thread, ok := want[m.Key]
		if !ok {
			t.Errorf("handed over %q (key %s), which was not missed", m.Text, m.Key)
			continue
		}
		delete(want, m.Key)
		if m.Thread != thread || m.User.ID != alice || m.Direct != (thread.Space == "") {
			t.Errorf("%q handed over as %+v; want %+v from %s", m.Text, m, thread, alice)
		}
	}
	for key := range want {
		t.Errorf("missed message %s was not handed over", key)
	}
	if srv.Identifies() != 2 || srv.Resumes() != 0 {
		t.Errorf("%d IDENTIFYs and %d RESUMEs; want one IDENTIFY per process", srv.Identifies(), srv.Resumes())
	}

	// The recovery moved the cursors on (before it logged), and live
	// messages still arrive.
	for ch, want := range map[string]string{channel: guild + "|" + missedInChannel, dm: "|" + missedInDM} {
		if v, ok, err := db.Get(t.Context(), "discord:seen:"+ch); v != want || !ok || err != nil {
			t.Errorf("after the recovery, State has %q, %v, %v for channel %s; want %q", v, ok, err, ch, want)
		}
	}
	post(channel, "after the restart")
	second.waitMessage(t, "after the restart")
}
