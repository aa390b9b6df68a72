package discord_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/chat"
)

// runHandler records what Run hands over; commands answer through
// Respond as the router does.
type runHandler struct {
	mu       sync.Mutex
	msgs     []chat.Message
	commands []chat.Command
	changed  chan struct{} // closed and replaced on every message
}

func newRunHandler() *runHandler { return &runHandler{changed: make(chan struct{})} }

func (h *runHandler) HandleMessage(_ context.Context, m chat.Message) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs = append(h.msgs, m)
	close(h.changed)
	h.changed = make(chan struct{})
	return nil
}

// waitMessage waits until a message reading text was handed over.
func (h *runHandler) waitMessage(t *testing.T, text string) chat.Message {
	t.Helper()
	deadline := time.NewTimer(15 * time.Second)
	defer deadline.Stop()
	for {
		h.mu.Lock()
		changed := h.changed
		for _, m := range h.msgs {
			if m.Text == text {
				h.mu.Unlock()
				return m
			}
		}
		h.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("message %q never reached the handler", text)
		}
	}
}

func (h *runHandler) HandleAction(context.Context, chat.Action) error { return nil }

func (h *runHandler) HandleCommand(ctx context.Context, c chat.Command) error {
	h.mu.Lock()
	h.commands = append(h.commands, c)
	h.mu.Unlock()
	return c.Respond(ctx, chat.Out{Text: "args " + strings.Join(c.Args, " ")})
}

// startRun runs the adapter against srv until the test ends.
func startRun(t *testing.T, srv *discordtest.Server, guildID string) (*discord.Adapter, *runHandler) {
	t.Helper()
	ad, err := discord.New(discord.Config{Token: srv.Token(), APIURL: srv.APIURL(), GuildID: guildID,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h := newRunHandler()
	runUntilStopped(t, ad, h)
	return ad, h
}

func waitFor(t *testing.T, srv *discordtest.Server, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	if err := srv.WaitFor(ctx, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// TestRunRegistersCommands: Run identifies with the intents the adapter
// needs and registers chat.Menu() where configured.
func TestRunRegistersCommands(t *testing.T) {
	for _, guild := range []string{"", confGuild} {
		t.Run("guild="+guild, func(t *testing.T) {
			srv := discordtest.NewServer(discordtest.WithoutRateLimits())
			t.Cleanup(srv.Close)
			srv.AddGuild(confGuild, "g")
			startRun(t, srv, guild)
			waitFor(t, srv, "commands", func() bool { return len(srv.Commands(guild)) == len(chat.Menu()) })
			if got, want := srv.Intents(), int(discord.Intents); got != want {
				t.Errorf("IDENTIFY intents = %d, want %d", got, want)
			}
			var memory discordtest.Command
			for _, c := range srv.Commands(guild) {
				if c.Name == "memory" {
					memory = c
				}
			}
			var opts []struct{ Name string }
			if err := json.Unmarshal(memory.Options, &opts); err != nil {
				t.Fatalf("/memory options %s: %v", memory.Options, err)
			}
			if !slices.EqualFunc(opts, []string{"show", "forget", "clear", "team", "team-forget"}, func(o struct{ Name string }, n string) bool { return o.Name == n }) {
				t.Errorf("/memory subcommands %s", memory.Options)
			}
		})
	}
}

// TestRunSlashCommand: a slash command arrives over the gateway, is
// deferred at once as ephemeral, and its answer fills that reply.
func TestRunSlashCommand(t *testing.T) {
	srv := discordtest.NewServer(discordtest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	srv.AddGuild(confGuild, "g")
	srv.AddChannel(confGuild, "600000000000000001", "general")
	srv.AddUser("300000000000000001", "alice")
	_, h := startRun(t, srv, confGuild)
	waitFor(t, srv, "commands", func() bool { return len(srv.Commands(confGuild)) > 0 })

	id, err := srv.Command("600000000000000001", "300000000000000001", "memory", discordtest.CommandOption{
		Name: "forget", Type: 1, Options: []discordtest.CommandOption{{Name: "n", Type: 4, Value: 3}}})
	if err != nil {
		t.Fatalf("Command: %v", err)
	}
	waitFor(t, srv, "the answer", func() bool {
		return slices.Contains(srv.Ephemeral("300000000000000001"), "args forget 3")
	})
	replies := srv.InteractionReplies(id)
	if len(replies) < 2 || replies[0].Kind != "callback" || replies[0].Type != 5 || replies[0].Flags&64 == 0 ||
		replies[1].Kind != "original-edit" {
		t.Errorf("interaction replies %+v; want a deferred ephemeral callback, then the edit of the original", replies)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.commands) != 1 || h.commands[0].Direct || h.commands[0].User.ID != "300000000000000001" {
		t.Errorf("commands handed over: %+v", h.commands)
	}
}

// TestRunSurvivesReconnects: messages sent while the connection is down
// are replayed by the RESUME after a drop or a reconnect request; after
// an invalidated session the adapter identifies afresh and receives again.
func TestRunSurvivesReconnects(t *testing.T) {
	srv := discordtest.NewServer(discordtest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	const alice = "300000000000000001"
	srv.AddUser(alice, "alice")
	dm := srv.DMChannel(alice)
	_, h := startRun(t, srv, "")
	expect := func(text string) {
		t.Helper()
		srv.Post(discordtest.Incoming{Channel: dm, Author: alice, Content: text})
		if m := h.waitMessage(t, text); !m.Direct || m.Thread.Chat != dm {
			t.Errorf("%q arrived as %+v", text, m)
		}
	}
	expect("before") // the session is up

	srv.DropConnection()
	expect("after a drop")
	srv.RequestReconnect()
	expect("after a reconnect request")
	if srv.Resumes() < 2 {
		t.Errorf("%d RESUMEs, want one per reconnection", srv.Resumes())
	}

	// A new session does not receive what the old one missed: wait for
	// the fresh IDENTIFY before writing.
	srv.InvalidateSession()
	waitFor(t, srv, "a fresh IDENTIFY", func() bool { return srv.Identifies() == 2 && srv.Connected() })
	expect("after an invalid session")
}
