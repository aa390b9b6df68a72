package discord

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/bot/adapterkit"
)

const (
	// seenPrefix starts the State key of each channel's newest handled
	// message; the value is "<guild id>|<message id>".
	seenPrefix = "discord:seen:"
	// seenMaxAge: the core refuses events older than a day, so a channel
	// quiet for longer has nothing worth recovering.
	seenMaxAge = 24 * time.Hour
	// seenKeep is how long entries stay before a start deletes them.
	seenKeep = 7 * 24 * time.Hour
	// seenWriteTimeout bounds a write that outlives Run's context: the
	// cursor of a message handled during shutdown must still be saved.
	seenWriteTimeout = 5 * time.Second
)

// seenTracker decides how far each channel's persisted cursor may go.
// Messages are handled concurrently, so the newest one done may have
// older ones still in flight: a crash then must not skip those. The
// cursor is the newest message done that is older than every message in
// flight. A recovery holds its channel's starting point in flight the
// same way, so live messages of a new session cannot move the cursor
// past what the recovery has yet to read.
type seenTracker struct {
	mu    sync.Mutex
	chans map[string]*channelCursor // only channels with work in flight

	// write serializes the cursor writes, so that they reach State in
	// the order their cursors were decided, and guards stored.
	write  sync.Mutex
	stored *adapterkit.Cache[string, string] // channel → message id in State
}

type channelCursor struct {
	inFlight map[string]int // message id → handlings under way
	done     []string       // finished, but newer than something in flight
}

func newSeenTracker() *seenTracker {
	return &seenTracker{chans: make(map[string]*channelCursor), stored: adapterkit.NewCache[string, string](rememberChannels)}
}

// begin marks message id of channel in flight.
func (t *seenTracker) begin(channel, id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.chans[channel]
	if !ok {
		c = &channelCursor{inFlight: make(map[string]int)}
		t.chans[channel] = c
	}
	c.inFlight[id]++
}

// end marks one handling of id done and returns the channel's cursor:
// the newest message done before everything still in flight, or "".
func (t *seenTracker) end(channel, id string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.chans[channel]
	if !ok {
		return id
	}
	if c.inFlight[id]--; c.inFlight[id] <= 0 {
		delete(c.inFlight, id)
	}
	c.done = append(c.done, id)
	var oldest string
	for f := range c.inFlight {
		if oldest == "" || snowflakeLess(f, oldest) {
			oldest = f
		}
	}
	var cursor string
	c.done = slices.DeleteFunc(c.done, func(d string) bool {
		if oldest != "" && !snowflakeLess(d, oldest) {
			return false
		}
		if cursor == "" || snowflakeLess(cursor, d) {
			cursor = d
		}
		return true
	})
	if len(c.inFlight) == 0 && len(c.done) == 0 {
		delete(t.chans, channel)
	}
	return cursor
}

// beginSeen marks m in flight, before it is handed over: for a live
// message on the gateway's reader, in the order of dispatch.
func (a *Adapter) beginSeen(channel, id string) {
	if a.cfg.State == nil || channel == "" || id == "" {
		return
	}
	a.seen.begin(channel, id)
}

// endSeen marks id handled and saves the channel's cursor when it moved
// forward. A failed write is logged: the next start then reads from an
// older cursor, and the inbox drops what comes twice.
func (a *Adapter) endSeen(ctx context.Context, channel, guild, id string) {
	if a.cfg.State == nil || channel == "" || id == "" {
		return
	}
	a.seen.write.Lock()
	defer a.seen.write.Unlock()
	cursor := a.seen.end(channel, id)
	if cursor == "" {
		return
	}
	if old, ok := a.seen.stored.Get(channel); ok && !snowflakeLess(old, cursor) {
		return
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), seenWriteTimeout)
	defer cancel()
	if err := a.cfg.State.Set(wctx, seenPrefix+channel, guild+"|"+cursor); err != nil {
		a.log.Warn("cannot save the newest message seen in a channel", "channel", channel, "err", err)
		return
	}
	a.seen.stored.Put(channel, cursor)
}

// loadSeen puts the channels active in the last seenMaxAge, as State
// remembers them, into a.active, before Run connects: the first READY
// recovers them like after a lost session. It reports how many it
// loaded.
func (a *Adapter) loadSeen(ctx context.Context) int { return a.loadShardSeen(ctx, allShards) }

// loadShardSeen is loadSeen for the channels of shard (shardOf), or of
// every shard (allShards).
func (a *Adapter) loadShardSeen(ctx context.Context, shard int) int {
	if a.cfg.State == nil {
		return 0
	}
	now := a.now()
	if _, err := a.cfg.State.DeleteStale(ctx, seenPrefix, now.Add(-seenKeep)); err != nil {
		a.log.Warn("cannot forget old channel cursors", "err", err)
	}
	kv, err := a.cfg.State.KeysWithPrefix(ctx, seenPrefix, now.Add(-seenMaxAge))
	if err != nil {
		a.log.Warn("cannot read the channel cursors; messages sent while Parley was stopped are not recovered",
			"err", err)
		return 0
	}
	var loaded []*discordgo.Message
	for k, v := range kv {
		channel := strings.TrimPrefix(k, seenPrefix)
		guild, id, ok := strings.Cut(v, "|")
		if !ok || !isSnowflake(channel) || !isSnowflake(id) || (guild != "" && !isSnowflake(guild)) {
			a.log.Warn("ignoring a malformed channel cursor", "key", k, "value", v)
			continue
		}
		if shard != allShards && a.shardOf(guild) != shard {
			continue
		}
		loaded = append(loaded, &discordgo.Message{ID: id, ChannelID: channel, GuildID: guild})
	}
	// Oldest first, so that a.active ranks the newest as most recent.
	slices.SortFunc(loaded, func(x, y *discordgo.Message) int {
		return cmp.Or(compareSnowflakes(x.ID, y.ID), strings.Compare(x.ChannelID, y.ChannelID))
	})
	for _, m := range loaded {
		a.noteSeen(m)
		a.seen.stored.Put(m.ChannelID, m.ID)
	}
	return len(loaded)
}

// isSnowflake reports a Discord id: decimal digits only, since
// compareSnowflakes orders them as numbers.
func isSnowflake(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
