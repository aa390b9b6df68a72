package discord_test

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/chat"
)

// shardedWorld is a fake Discord with one guild and channel per shard,
// and a DM with alice.
type shardedWorld struct {
	srv      *discordtest.Server
	shards   int
	channels []string // by shard
	dm       string
	alice    string
}

func newShardedWorld(t *testing.T, shards int) *shardedWorld {
	t.Helper()
	srv := discordtest.NewServer(discordtest.WithoutRateLimits(), discordtest.WithRequiredShards(shards))
	t.Cleanup(srv.Close)
	w := &shardedWorld{srv: srv, shards: shards, alice: "300000000000000009"}
	for i := range shards {
		// (guild_id >> 22) % shards == i
		guild := strconv.FormatUint(uint64(10_000_000*shards+i)<<22|5, 10)
		srv.AddGuild(guild, fmt.Sprintf("guild %d", i))
		w.channels = append(w.channels, strconv.Itoa(610000000000000000+i))
		srv.AddChannel(guild, w.channels[i], "general")
	}
	srv.AddUser(w.alice, "alice")
	w.dm = srv.DMChannel(w.alice)
	return w
}

// adapter is an adapter with shards shards on w. Its Sleep returns at
// once: the IDENTIFYs of the shards are not spaced 5 s apart here.
func (w *shardedWorld) adapter(t *testing.T, logs *logWatch) *discord.Adapter {
	t.Helper()
	ad, err := discord.New(discord.Config{Token: w.srv.Token(), APIURL: w.srv.APIURL(), Shards: w.shards,
		Logger: slog.New(slog.NewTextHandler(logs, nil)),
		Sleep:  func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return ad
}

func (w *shardedWorld) post(channel, text string) string {
	return w.srv.Post(discordtest.Incoming{Channel: channel, Author: w.alice, Content: text})
}

// postEverywhere posts text in every shard's channel and the DM; it
// returns the texts, by the shard that must deliver them.
func (w *shardedWorld) postEverywhere(text string) map[string]int {
	posted := map[string]int{}
	for i, c := range w.channels {
		posted[fmt.Sprintf("%s in shard %d", text, i)] = i
		w.post(c, fmt.Sprintf("%s in shard %d", text, i))
	}
	posted[text+" in the DM"] = 0
	w.post(w.dm, text+" in the DM")
	return posted
}

// checkIdentifies checks that each shard identified want(shard) times.
func (w *shardedWorld) checkIdentifies(t *testing.T, want func(shard int) int) {
	t.Helper()
	for i := range w.shards {
		if n := w.srv.ShardIdentifies(i); n != want(i) {
			t.Errorf("shard %d identified %d times, want %d", i, n, want(i))
		}
	}
}

// count is 1 for true, 0 for false.
func count(b bool) int {
	if b {
		return 1
	}
	return 0
}

// commandOverwrites counts the slash command registrations.
func commandOverwrites(srv *discordtest.Server) int {
	n := 0
	for _, c := range srv.Calls() {
		if c.Method == "PUT" && strings.HasSuffix(c.Path, "/commands") {
			n++
		}
	}
	return n
}

// handedOnce checks that each text reached h exactly once.
func handedOnce(t *testing.T, h *runHandler, texts map[string]int) {
	t.Helper()
	for text := range texts {
		if n := len(h.handed(text)); n != 1 {
			t.Errorf("%q handed over %d times, want once", text, n)
		}
	}
}

// TestRunShards: Run identifies every shard once, each shard's guild
// messages and the DMs reach the handler once, each on its own shard, and
// the slash commands are registered once.
func TestRunShards(t *testing.T) {
	for _, shards := range []int{2, 3} {
		t.Run(strconv.Itoa(shards), func(t *testing.T) {
			w := newShardedWorld(t, shards)
			ad := w.adapter(t, newLogWatch())
			if ad.Shards() != shards {
				t.Fatalf("Shards() = %d, want %d", ad.Shards(), shards)
			}
			// Replicas' gate (chat.StartGated): asked once per shard, for
			// Discord's spacing of IDENTIFYs.
			var gated atomic.Int32
			ad.SetStartGate(func(_ context.Context, every time.Duration) error {
				if every != 5*time.Second {
					t.Errorf("the gate was asked for %v, want 5s", every)
				}
				gated.Add(1)
				return nil
			})
			h := newRunHandler()
			stop := runUntilStopped(t, ad, h)
			waitFor(t, w.srv, "every shard", w.srv.Connected)
			waitFor(t, w.srv, "commands", func() bool { return len(w.srv.Commands("")) == len(chat.Menu()) })

			posted := w.postEverywhere("hello")
			for text := range posted {
				h.waitMessage(t, text)
			}
			if !ad.Connected() {
				t.Error("Connected() = false with every shard up")
			}
			stop()
			handedOnce(t, h, posted)
			w.checkIdentifies(t, func(int) int { return 1 })
			if n := gated.Load(); n != int32(shards) {
				t.Errorf("the start gate was asked %d times, want once per shard (%d)", n, shards)
			}
			for _, d := range w.srv.Dispatches() {
				if d.Type == "MESSAGE_CREATE" && d.Shard != discordtest.ShardOf(d.GuildID, shards) {
					t.Errorf("message %s of guild %q dispatched on shard %d", d.ID, d.GuildID, d.Shard)
				}
			}
			if n := commandOverwrites(w.srv); n != 1 {
				t.Errorf("slash commands registered %d times, want once", n)
			}
			if ad.Connected() {
				t.Error("Connected() = true after Run returned")
			}
		})
	}
}

// TestRunShardReceivesItsGuilds: RunShard receives on its shard alone —
// the messages of its guilds, not the others' nor the DMs (shard 0's) —
// and only shard 0 registers the slash commands.
func TestRunShardReceivesItsGuilds(t *testing.T) {
	for _, tt := range []struct{ shards, shard int }{{2, 1}, {3, 0}, {3, 2}} {
		t.Run(fmt.Sprintf("%d of %d", tt.shard, tt.shards), func(t *testing.T) {
			w := newShardedWorld(t, tt.shards)
			ad := w.adapter(t, newLogWatch())
			h := newRunHandler()
			stop := untilStopped(t, func(ctx context.Context) error { return ad.RunShard(ctx, h, tt.shard) })
			waitFor(t, w.srv, "the shard", func() bool { return w.srv.ShardConnected(tt.shard) })
			if tt.shard == 0 {
				waitFor(t, w.srv, "commands", func() bool { return len(w.srv.Commands("")) == len(chat.Menu()) })
			}

			posted := w.postEverywhere("hello")
			for text, shard := range posted {
				if shard == tt.shard {
					h.waitMessage(t, text)
				}
			}
			// The other shards' messages wait for sessions that never
			// come; stop lets every handling started finish.
			if err := stop(); err != context.Canceled {
				t.Errorf("RunShard returned %v, want context.Canceled", err)
			}
			for text, shard := range posted {
				if n, want := len(h.handed(text)), count(shard == tt.shard); n != want {
					t.Errorf("%q handed over %d times, want %d", text, n, want)
				}
			}
			w.checkIdentifies(t, func(i int) int { return count(i == tt.shard) })
			if n, want := commandOverwrites(w.srv), count(tt.shard == 0); n != want {
				t.Errorf("slash commands registered %d times, want %d", n, want)
			}
		})
	}
}

// TestRunShardOutOfRange: a shard past Shards() is refused at once.
func TestRunShardOutOfRange(t *testing.T) {
	w := newShardedWorld(t, 2)
	ad := w.adapter(t, newLogWatch())
	for _, shard := range []int{-1, 2} {
		if err := ad.RunShard(t.Context(), newRunHandler(), shard); err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("RunShard(%d) = %v, want an error", shard, err)
		}
	}
}

// TestShardRecoversItsLostSession: one shard's session is lost while the
// others stay up. After its fresh READY the adapter reads back only that
// shard's channels (and the DMs for shard 0), and hands over what was
// missed there once; the other shards' messages, delivered live, are not
// handed again.
func TestShardRecoversItsLostSession(t *testing.T) {
	for _, tt := range []struct{ shards, lost int }{{2, 0}, {2, 1}, {3, 2}} {
		t.Run(fmt.Sprintf("%d of %d", tt.lost, tt.shards), func(t *testing.T) {
			w := newShardedWorld(t, tt.shards)
			logs := newLogWatch()
			ad := w.adapter(t, logs)
			h := newRunHandler()
			stop := runUntilStopped(t, ad, h)
			waitFor(t, w.srv, "every shard", w.srv.Connected)
			before := w.postEverywhere("before")
			for text := range before {
				h.waitMessage(t, text)
			}

			w.srv.HoldGateway()
			w.srv.DropShard(tt.lost)
			waitFor(t, w.srv, "the shard to reconnect and be held", func() bool { return w.srv.Held() == 1 })
			during := w.postEverywhere("during")
			w.srv.ForgetShard(tt.lost)
			w.srv.ReleaseGateway()

			checked := 1 // the lost shard's channel
			if tt.lost == 0 {
				checked++ // and the DM
			}
			logs.waitLine(t, "recovered messages", "messages="+strconv.Itoa(checked), "checked="+strconv.Itoa(checked))
			for text := range during {
				h.waitMessage(t, text)
			}
			stop()
			handedOnce(t, h, before)
			handedOnce(t, h, during)
			// The others kept their sessions. The lost shard identified
			// afresh, at least once more: discordgo's heartbeat and reader
			// may each start a reconnect after the drop, and on a loaded
			// machine both do (the fresh sessions are the same shard's, the
			// messages handed once, as checked above).
			for i := range w.shards {
				n := w.srv.ShardIdentifies(i)
				if i != tt.lost && n != 1 || i == tt.lost && n < 2 {
					t.Errorf("shard %d identified %d times, want %s", i, n, map[bool]string{true: "2 or more", false: "1"}[i == tt.lost])
				}
			}
			// Only the lost shard's channels were read back.
			mine := map[string]bool{"/channels/" + w.channels[tt.lost] + "/messages": true}
			if tt.lost == 0 {
				mine["/channels/"+w.dm+"/messages"] = true
			}
			for _, c := range w.srv.Calls() {
				if c.Method == "GET" && strings.HasSuffix(c.Path, "/messages") && !mine[c.Path] {
					t.Errorf("recovery read %s, not a channel of shard %d", c.Path, tt.lost)
				}
			}
			if n := commandOverwrites(w.srv); n != 1 {
				t.Errorf("slash commands registered %d times, want once", n)
			}
		})
	}
}
