package discord

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/chat"
)

// MaxShards bounds Config.Shards (discord.shards).
const MaxShards = 1024

// allShards, for a shard, means every one.
const allShards = -1

// identifyEvery spaces the IDENTIFYs of a process's shards: Discord
// starts one session per 5 s for a bot whose max_concurrency is 1, and
// closes the connections of a faster one.
const identifyEvery = 5 * time.Second

var _ chat.ShardedReceiver = (*Adapter)(nil)

// gatewayShard is one gateway connection: its own discordgo session,
// identified as shard [id, Config.Shards], which Discord sends the
// events of the guilds with (guild_id >> 22) % Shards == id, and shard 0
// the DMs'. Each keeps its own gateway state (READY, GUILD_CREATE).
type gatewayShard struct {
	id int
	s  *discordgo.Session
	// running: a Run or RunShard receives on the shard now; connected:
	// its session is open (ready.go).
	running, connected atomic.Bool
}

// Shards is how many shards the bot's events are split into
// (Config.Shards).
func (a *Adapter) Shards() int { return len(a.shards) }

// RunShard receives shard's events until ctx ends, as Run does for every
// shard: replicas sharing a store each run the shards they lead. After a
// restart or a lost session it recovers only the channels of shard's
// guilds, and the DMs on shard 0; shard 0 registers the slash commands.
func (a *Adapter) RunShard(ctx context.Context, h chat.Handler, shard int) error {
	if shard < 0 || shard >= len(a.shards) {
		return fmt.Errorf("discord: shard %d of %d does not exist", shard, len(a.shards))
	}
	restored := a.loadShardSeen(ctx, shard) > 0
	return a.runShard(ctx, h, a.shards[shard], restored)
}

// runShards runs every shard until ctx ends, or one fails where retrying
// cannot help: then the others stop and its error is returned.
func (a *Adapter) runShards(ctx context.Context, h chat.Handler, restored bool) error {
	all, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var g sync.WaitGroup
	for _, sh := range a.shards {
		g.Go(func() {
			// runShard returns early only with an error.
			if err := a.runShard(all, h, sh, restored); all.Err() == nil {
				stop(err)
			}
		})
	}
	g.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return context.Cause(all)
}

// shardOf is the shard that receives guild's events: Discord's
// (guild_id >> 22) % shards; DMs (guild "") go to shard 0.
func (a *Adapter) shardOf(guild string) int {
	id, err := strconv.ParseUint(guild, 10, 64)
	if err != nil || len(a.shards) == 1 {
		return 0
	}
	return int((id >> 22) % uint64(len(a.shards)))
}

// activeOf is what a recovery of shard reads: the backfillChannels
// channels of its guilds (and DMs, on shard 0) with the most recent
// traffic.
func (a *Adapter) activeOf(shard int) []adapterkit.Entry[string, activeChannel] {
	if len(a.shards) == 1 {
		return a.active.Newest(backfillChannels)
	}
	var out []adapterkit.Entry[string, activeChannel]
	for _, e := range a.active.Newest(rememberChannels) {
		if a.shardOf(e.Val.guild) == shard {
			out = append(out, e)
			if len(out) == backfillChannels {
				break
			}
		}
	}
	return out
}

var _ chat.StartGated = (*Adapter)(nil)

// SetStartGate makes each shard's session, when the bot has several, wait
// for gate before its IDENTIFY (chat.StartGated): replicas that each lead a
// shard space their IDENTIFYs as one process does.
func (a *Adapter) SetStartGate(gate func(ctx context.Context, every time.Duration) error) {
	a.startGate.Store(&gate)
}

// openShard opens sh's gateway session, identifyEvery after the last
// shard this process opened, and after the start gate lets it.
func (a *Adapter) openShard(ctx context.Context, sh *gatewayShard) error {
	if len(a.shards) == 1 {
		return a.open(ctx, sh.s)
	}
	a.identifying.Lock()
	defer a.identifying.Unlock()
	if !a.lastIdentify.IsZero() {
		if wait := a.lastIdentify.Add(identifyEvery).Sub(a.now()); wait > 0 {
			if err := a.sleep(ctx, wait); err != nil {
				return err
			}
		}
	}
	if gate := a.startGate.Load(); gate != nil && *gate != nil {
		if err := (*gate)(ctx, identifyEvery); err != nil {
			return fmt.Errorf("discord: shard %d: wait for the other replicas' IDENTIFYs: %w", sh.id, err)
		}
	}
	err := a.open(ctx, sh.s)
	a.lastIdentify = a.now()
	return err
}
