package bot

import (
	"context"
	"time"
)

// Leases are the shared store's named leases, by which replicas of Parley
// on one database take turns (docs/replicas.md): a session's turns run on
// the replica holding "session:<id>", a platform's receiver on the one
// holding its name. A lease is held by one holder at a time, until it is
// released or its time runs out, so a replica that dies loses its leases
// within one TTL. Times come from the caller's clock (the core's), never
// the database's.
type Leases interface {
	// HoldLease takes name for holder until now+ttl, or extends holder's
	// own lease to that; ok is false while another holder's lease has
	// not expired at now.
	HoldLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (ok bool, err error)
	// ReleaseLease ends holder's lease on name at once; a lease another
	// holder took meanwhile is left alone.
	ReleaseLease(ctx context.Context, name, holder string) error
}

// Replicas is the shared store's register of live replicas, from which
// each replica takes its fair share of the platforms' rate limits.
type Replicas interface {
	// Beat records replica alive at now and returns how many replicas
	// (itself included) beat at or after since.
	Beat(ctx context.Context, replica string, now, since time.Time) (live int, err error)
	// Leave removes replica from the register: its share goes to the
	// others at their next beat.
	Leave(ctx context.Context, replica string) error
}

// ShardedReceiver is implemented by adapters whose platform splits the
// events a bot receives into shards (Discord's gateway sharding). Run
// receives on every shard; replicas sharing a store instead elect a
// receiver per shard, so the shards spread over them (router_shared.go).
type ShardedReceiver interface {
	// Shards is how many shards the bot's events are split into.
	Shards() int
	// RunShard receives shard's events until ctx ends, as Run does for all.
	RunShard(ctx context.Context, h Handler, shard int) error
}

// ShareTaker is implemented by adapters that pace platform calls of their
// own, outside Outbound (Slack's users.info): replicas sharing a store
// tell them how many replicas now draw on the bot's budgets, as they tell
// every Pacer (Pacer.SetShare).
type ShareTaker interface {
	SetShare(n int)
}

// StartGated is implemented by adapters whose platform limits how fast a
// bot opens sessions across all its connections (Discord: one IDENTIFY per
// 5 s for most bots). Each adapter spaces its own; replicas sharing a
// store also hand it a gate that spaces the starts of every replica
// (router_shared.go, startGate).
type StartGated interface {
	// SetStartGate makes each new session first wait for gate, with the
	// spacing its platform asks for.
	SetStartGate(gate func(ctx context.Context, every time.Duration) error)
}
