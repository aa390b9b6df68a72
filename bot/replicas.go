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

// Replica is one replica as the register last saw it.
type Replica struct {
	ID     string
	SeenAt time.Time
}

// Lease is one lease and who holds it until when.
type Lease struct {
	Name    string
	Holder  string
	Expires time.Time
}

// SharedState says who shares the store now (the console's overview):
// both store engines implement it.
type SharedState interface {
	// LiveReplicas lists the replicas seen at or after since, by id.
	LiveReplicas(ctx context.Context, since time.Time) ([]Replica, error)
	// HeldLeases lists the leases unexpired at now, by name.
	HeldLeases(ctx context.Context, now time.Time) ([]Lease, error)
}
