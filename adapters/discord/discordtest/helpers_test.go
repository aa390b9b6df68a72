package discordtest_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/adapters/discord/discordtest"
)

const (
	guild   = "100000000000000001"
	general = "100000000000000002"
	alice   = "200000000000000001"
	bob     = "200000000000000002"

	intents = discordgo.IntentsGuilds | discordgo.IntentsGuildMessages |
		discordgo.IntentsDirectMessages | discordgo.IntentsMessageContent
)

// testCtx bounds a test; it only signals a hang, it never paces anything.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newServer(t *testing.T, opts ...discordtest.Option) *discordtest.Server {
	t.Helper()
	// Discord's own heartbeat interval (41.25 s) unless a test asks for
	// less: discordgo's heartbeat goroutine, when a beat collides with
	// Close or an ACK is late on a loaded machine, starts a reconnect loop
	// that outlives the test and races with discordgo's own Open (a data
	// race inside the library). Only the heartbeat test needs beats.
	srv := discordtest.NewServer(opts...)
	t.Cleanup(srv.Close)
	srv.AddGuild(guild, "Parley HQ")
	srv.AddChannel(guild, general, "general")
	srv.AddUser(alice, "alice")
	srv.AddUser(bob, "bob")
	return srv
}

// newSession builds a discordgo session the way the adapter does, without
// opening the gateway.
func newSession(t *testing.T, srv *discordtest.Server, token string) *discordgo.Session {
	t.Helper()
	s, err := discordgo.New("Bot " + token)
	if err != nil {
		t.Fatal(err)
	}
	rw, err := discord.NewRewrite(srv.APIURL())
	if err != nil {
		t.Fatal(err)
	}
	s.Client = &http.Client{Transport: rw, Timeout: 20 * time.Second}
	s.Identify.Intents = intents
	s.SyncEvents = true
	s.LogLevel = -1 // reconnects are expected here; keep test output quiet
	return s
}

// recorder collects gateway events delivered to discordgo's handlers.
type recorder struct {
	mu           sync.Mutex
	changed      chan struct{}
	messages     []*discordgo.MessageCreate
	interactions []*discordgo.InteractionCreate
	threads      []*discordgo.ThreadCreate
	guilds       []*discordgo.GuildCreate
}

func (r *recorder) add(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f()
	close(r.changed)
	r.changed = make(chan struct{})
}

// wait blocks until cond (called with r.mu held) holds.
func (r *recorder) wait(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for {
		r.mu.Lock()
		done, ch := cond(), r.changed
		r.mu.Unlock()
		if done {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		}
	}
}

func (r *recorder) message(t *testing.T, ctx context.Context, id string) *discordgo.MessageCreate {
	t.Helper()
	var got *discordgo.MessageCreate
	r.wait(t, ctx, "MESSAGE_CREATE "+id, func() bool {
		for _, m := range r.messages {
			if m.ID == id {
				got = m
				return true
			}
		}
		return false
	})
	return got
}

func (r *recorder) count(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.messages {
		if m.ID == id {
			n++
		}
	}
	return n
}

func (r *recorder) interaction(t *testing.T, ctx context.Context, id string) *discordgo.InteractionCreate {
	t.Helper()
	var got *discordgo.InteractionCreate
	r.wait(t, ctx, "INTERACTION_CREATE "+id, func() bool {
		for _, in := range r.interactions {
			if in.ID == id {
				got = in
				return true
			}
		}
		return false
	})
	return got
}

// connect opens a real discordgo session against srv and records its events.
func connect(t *testing.T, srv *discordtest.Server) (*discordgo.Session, *recorder) {
	t.Helper()
	return connectWith(t, srv, func(*discordgo.Session) {})
}

// connectWith is connect with the session set up by setup before it opens.
func connectWith(t *testing.T, srv *discordtest.Server, setup func(*discordgo.Session)) (*discordgo.Session, *recorder) {
	t.Helper()
	s := newSession(t, srv, srv.Token())
	setup(s)
	rec := &recorder{changed: make(chan struct{})}
	s.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageCreate) {
		rec.add(func() { rec.messages = append(rec.messages, m) })
	})
	s.AddHandler(func(_ *discordgo.Session, i *discordgo.InteractionCreate) {
		rec.add(func() { rec.interactions = append(rec.interactions, i) })
	})
	s.AddHandler(func(_ *discordgo.Session, th *discordgo.ThreadCreate) {
		rec.add(func() { rec.threads = append(rec.threads, th) })
	})
	s.AddHandler(func(_ *discordgo.Session, g *discordgo.GuildCreate) {
		rec.add(func() { rec.guilds = append(rec.guilds, g) })
	})
	if err := s.Open(); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, rec
}

// restErr asserts err is Discord's JSON error with this status and code.
func restErr(t *testing.T, err error, status, code int) {
	t.Helper()
	var re *discordgo.RESTError
	if !errors.As(err, &re) {
		t.Fatalf("error = %v, want *discordgo.RESTError %d/%d", err, status, code)
	}
	if re.Response.StatusCode != status || re.Message == nil || re.Message.Code != code {
		t.Fatalf("error = %v, want HTTP %d code %d", err, status, code)
	}
}
