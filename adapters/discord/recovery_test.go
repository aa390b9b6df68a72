package discord_test

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/chat"
)

// logWatch is a log sink a test can wait on.
type logWatch struct {
	mu      sync.Mutex
	b       strings.Builder
	changed chan struct{}
}

func newLogWatch() *logWatch { return &logWatch{changed: make(chan struct{})} }

func (l *logWatch) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	close(l.changed)
	l.changed = make(chan struct{})
	return l.b.Write(p)
}

// waitLine waits for a log line containing every part, and returns it.
func (l *logWatch) waitLine(t *testing.T, parts ...string) string {
	t.Helper()
	deadline := time.NewTimer(15 * time.Second)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		changed, text := l.changed, l.b.String()
		l.mu.Unlock()
		for line := range strings.Lines(text) {
			if containsAll(line, parts) {
				return line
			}
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("no log line with %q in:\n%s", parts, text)
		}
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// handed returns what the handler received reading text.
func (h *runHandler) handed(text string) []chat.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []chat.Message
	for _, m := range h.msgs {
		if m.Text == text {
			out = append(out, m)
		}
	}
	return out
}

// TestRunRecoversLostSession: Discord forgets the session while the
// client is away, so the RESUME fails and the new session never receives
// what was posted meanwhile. After the fresh READY the adapter reads the
// channels it follows and hands over the missed messages, once, as
// normalized as live ones; what it handled before is not handed again,
// and what both the new session and the recovery deliver carries one Key.
func TestRunRecoversLostSession(t *testing.T) {
	srv := discordtest.NewServer(discordtest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	const (
		guild   = "700000000000000002"
		channel = "600000000000000002"
		alice   = "300000000000000002"
	)
	srv.AddGuild(guild, "g")
	srv.AddChannel(guild, channel, "general")
	srv.AddUser(alice, "alice")
	dm := srv.DMChannel(alice)

	logs := newLogWatch()
	ad, err := discord.New(discord.Config{Token: srv.Token(), APIURL: srv.APIURL(),
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h := newRunHandler()
	runUntilStopped(t, ad, h)

	post := func(ch, text string) string {
		return srv.Post(discordtest.Incoming{Channel: ch, Author: alice, Content: text})
	}
	post(channel, "before, in the channel")
	post(dm, "before, in the DM")
	h.waitMessage(t, "before, in the channel")
	h.waitMessage(t, "before, in the DM")

	// The client loses its connection and cannot come back yet.
	srv.HoldGateway()
	srv.DropConnection()
	waitFor(t, srv, "the client to reconnect and be held", func() bool { return srv.Held() == 1 })
	lostInChannel := post(channel, "lost, in the channel")
	lostInDM := post(dm, "lost, in the DM")
	srv.ForgetSessions()
	// Produced after the session is gone: the fresh IDENTIFY receives it
	// and the recovery reads it too.
	twice := post(dm, "after the session was forgotten")
	srv.ReleaseGateway()

	logs.waitLine(t, "recovered messages", "messages=3", "channels=2")
	if srv.Identifies() != 2 || srv.Resumes() != 0 {
		t.Errorf("%d IDENTIFYs and %d RESUMEs; want a failed RESUME, then a fresh IDENTIFY",
			srv.Identifies(), srv.Resumes())
	}
	h.waitMessage(t, "after the session was forgotten")

	for _, tt := range []struct {
		text, id string
		want     chat.Thread
		once     bool
	}{
		{text: "before, in the channel", once: true},
		{text: "before, in the DM", once: true},
		{text: "lost, in the channel", id: lostInChannel, once: true,
			want: chat.Thread{Platform: "discord", Space: guild, Chat: channel, ID: lostInChannel}},
		{text: "lost, in the DM", id: lostInDM, once: true, want: chat.Thread{Platform: "discord", Chat: dm}},
		{text: "after the session was forgotten", id: twice, want: chat.Thread{Platform: "discord", Chat: dm}},
	} {
		got := h.handed(tt.text)
		if len(got) == 0 || (tt.once && len(got) != 1) {
			t.Errorf("%q handed over %d times", tt.text, len(got))
			continue
		}
		for _, m := range got[1:] {
			if m.Key != got[0].Key {
				t.Errorf("%q handed over with keys %q and %q; the inbox could not dedupe it", tt.text, got[0].Key, m.Key)
			}
		}
		if tt.id == "" {
			continue
		}
		if m := got[0]; m.Key != "discord:"+tt.id || m.Thread != tt.want || m.Direct != (tt.want.Space == "") ||
			m.User.ID != alice {
			t.Errorf("%q handed over as %+v; want key discord:%s in %+v from %s", tt.text, m, tt.id, tt.want, alice)
		}
	}

	// The new session delivers live messages as usual.
	post(channel, "after the recovery")
	h.waitMessage(t, "after the recovery")
}
