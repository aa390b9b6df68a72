package discordtest_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/adapters/discord/discordtest"
)

// guildOn is a guild id whose events go to shard of shards.
func guildOn(shard, shards int) string {
	return strconv.FormatUint(uint64(10_000_000*shards+shard)<<22|7, 10)
}

// addShardedGuilds adds one guild with one channel per shard; it returns
// the channels, by shard.
func addShardedGuilds(srv *discordtest.Server, shards int) []string {
	channels := make([]string, shards)
	for i := range shards {
		g := guildOn(i, shards)
		srv.AddGuild(g, fmt.Sprintf("guild %d", i))
		channels[i] = strconv.Itoa(300000000000000000 + shards*100 + i)
		srv.AddChannel(g, channels[i], "general")
	}
	return channels
}

// connectShard opens shard of shards and records its events.
func connectShard(t *testing.T, srv *discordtest.Server, shard, shards int) (*discordgo.Session, *recorder) {
	t.Helper()
	return connectWith(t, srv, func(s *discordgo.Session) { s.ShardID, s.ShardCount = shard, shards })
}

func TestShardsReceiveOnlyTheirGuilds(t *testing.T) {
	t.Parallel()
	for _, shards := range []int{2, 3} {
		t.Run(strconv.Itoa(shards), func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			srv := newServer(t)
			channels := addShardedGuilds(srv, shards)
			dm := srv.DMChannel(alice)
			sessions := make([]*discordgo.Session, shards)
			recs := make([]*recorder, shards)
			for i := range shards {
				sessions[i], recs[i] = connectShard(t, srv, i, shards)
			}
			if err := srv.WaitFor(ctx, srv.Connected); err != nil {
				t.Fatal(err)
			}
			posted := map[string]int{} // message → the shard it must reach
			for i, c := range channels {
				posted[srv.Post(discordtest.Incoming{Channel: c, Author: alice, Content: "hi"})] = i
			}
			posted[srv.Post(discordtest.Incoming{Channel: dm, Author: alice, Content: "private"})] = 0
			for id, shard := range posted {
				recs[shard].message(t, ctx, id)
			}
			for id, shard := range posted {
				for i, rec := range recs {
					if n, want := rec.count(id), map[bool]int{true: 1}[i == shard]; n != want {
						t.Errorf("shard %d got message %s %d times, want %d", i, id, n, want)
					}
				}
			}
			for _, d := range srv.Dispatches() {
				if want := discordtest.ShardOf(d.GuildID, shards); d.Shard != want {
					t.Errorf("%s %s of guild %q went to shard %d, want %d", d.Type, d.ID, d.GuildID, d.Shard, want)
				}
			}
			for i, s := range sessions {
				if n := srv.ShardIdentifies(i); n != 1 {
					t.Errorf("ShardIdentifies(%d) = %d, want 1", i, n)
				}
				var ids []string
				s.State.RLock()
				for _, g := range s.State.Guilds {
					ids = append(ids, g.ID)
				}
				s.State.RUnlock()
				if !slices.Contains(ids, guildOn(i, shards)) {
					t.Errorf("shard %d READY guilds = %v, want %s among them", i, ids, guildOn(i, shards))
				}
				for _, g := range ids {
					if discordtest.ShardOf(g, shards) != i {
						t.Errorf("shard %d READY has guild %s of shard %d", i, g, discordtest.ShardOf(g, shards))
					}
				}
			}
		})
	}
}

func TestForgetShardKeepsTheOthers(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := newServer(t)
	channels := addShardedGuilds(srv, 2)
	_, rec0 := connectShard(t, srv, 0, 2)
	_, rec1 := connectShard(t, srv, 1, 2)
	if err := srv.WaitFor(ctx, srv.Connected); err != nil {
		t.Fatal(err)
	}
	srv.HoldGateway()
	srv.ForgetShard(1)
	// Shard 0 goes on receiving; shard 1's message waits for its new session.
	live := srv.Post(discordtest.Incoming{Channel: channels[0], Author: alice, Content: "live"})
	waiting := srv.Post(discordtest.Incoming{Channel: channels[1], Author: alice, Content: "waiting"})
	rec0.message(t, ctx, live)
	if err := srv.WaitFor(ctx, func() bool { return srv.Held() == 1 }); err != nil {
		t.Fatal(err)
	}
	srv.ReleaseGateway()
	rec1.message(t, ctx, waiting)
	if a, b := srv.ShardIdentifies(0), srv.ShardIdentifies(1); a != 1 || b != 2 {
		t.Errorf("ShardIdentifies = %d, %d; want 1, 2", a, b)
	}
}

func TestShardIdentifyRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		required int
		shard    *[2]int
		code     string
	}{
		{"shard past the count", 0, &[2]int{2, 2}, "4010"},
		{"negative shard", 0, &[2]int{-1, 2}, "4010"},
		{"no shards", 0, &[2]int{0, 0}, "4010"},
		{"unsharded bot that needs shards", 2, nil, "4011"},
		{"too few shards", 3, &[2]int{0, 2}, "4011"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, discordtest.WithRequiredShards(tt.required))
			s := newSession(t, srv, srv.Token())
			s.Identify.Shard = tt.shard // past discordgo's own bounds check
			err := s.Open()
			if err == nil {
				_ = s.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tt.code) {
				t.Errorf("Open error = %v, want close %s", err, tt.code)
			}
			if n := srv.Identifies(); n != 0 {
				t.Errorf("Identifies() = %d, want 0", n)
			}
		})
	}
}
