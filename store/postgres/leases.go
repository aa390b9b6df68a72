package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/store"
)

// *DB is an engine store.Backend names; since that took in bot.Leases and
// bot.Replicas (replicas on one database taking turns, docs/replicas.md),
// this is where the package checks it outside its tests.
var _ store.Backend = (*DB)(nil)

// HoldLease takes name for holder until now+ttl, or extends holder's own
// lease; ok is false while another holder's lease runs at now. It is one
// statement, atomic across processes: of upserts racing for one name,
// the first inserts or updates and locks the row, and each other one,
// waiting on that lock, checks the WHERE against the row as committed, so
// it finds another holder's unexpired lease and changes nothing (no row
// returned). Times are the caller's, never now(): the replicas agree on
// the core's clock, not the server's.
func (db *DB) HoldLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	if ttl <= 0 {
		return false, fmt.Errorf("postgres: hold lease %q: ttl %v is not positive", name, ttl)
	}
	var got string
	err := db.pool.QueryRow(ctx, `
		INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, $3)
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
		WHERE leases.holder = excluded.holder OR leases.expires_at <= $4
		RETURNING holder`,
		name, holder, ts(now.Add(ttl)), ts(now)).Scan(&got)
	if noRows(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("postgres: hold lease %q: %w", name, err)
	}
	return got == holder, nil
}

// ReleaseLease ends holder's lease on name at once. The holder is in the
// WHERE so that a replica releasing late, after its lease expired and
// another took it, does not free the other's.
func (db *DB) ReleaseLease(ctx context.Context, name, holder string) error {
	if _, err := db.pool.Exec(ctx,
		`DELETE FROM leases WHERE name = $1 AND holder = $2`, name, holder); err != nil {
		return fmt.Errorf("postgres: release lease %q: %w", name, err)
	}
	return nil
}

// Beat records replica alive at now and counts the replicas seen at or
// after since, itself included, in one statement. The count's snapshot
// does not show the statement's own upsert, so it counts the others from
// the table and this replica from what the upsert returned.
func (db *DB) Beat(ctx context.Context, replica string, now, since time.Time) (int, error) {
	var live int
	err := db.pool.QueryRow(ctx, `
		WITH beat AS (
			INSERT INTO replicas (id, seen_at) VALUES ($1, $2)
			ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at
			RETURNING seen_at
		)
		SELECT (SELECT count(*) FROM replicas WHERE id <> $1 AND seen_at >= $3)
		     + (SELECT count(*) FROM beat WHERE seen_at >= $3)`,
		replica, ts(now), ts(since)).Scan(&live)
	if err != nil {
		return 0, fmt.Errorf("postgres: beat %q: %w", replica, err)
	}
	return live, nil
}

// Leave removes replica from the register.
func (db *DB) Leave(ctx context.Context, replica string) error {
	if _, err := db.pool.Exec(ctx, `DELETE FROM replicas WHERE id = $1`, replica); err != nil {
		return fmt.Errorf("postgres: leave %q: %w", replica, err)
	}
	return nil
}

// LiveReplicas lists the replicas seen at or after since, by id.
func (db *DB) LiveReplicas(ctx context.Context, since time.Time) ([]bot.Replica, error) {
	rows, err := db.pool.Query(ctx, `SELECT id, seen_at FROM replicas WHERE seen_at >= $1 ORDER BY id COLLATE "C"`, ts(since))
	if err != nil {
		return nil, fmt.Errorf("postgres: replicas: %w", err)
	}
	out, err := collect(rows, func(r rowScanner) (bot.Replica, error) {
		var x bot.Replica
		err := r.Scan(&x.ID, &x.SeenAt)
		x.SeenAt = x.SeenAt.UTC()
		return x, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: replicas: %w", err)
	}
	return out, nil
}

// HeldLeases lists the leases unexpired at now, by name.
func (db *DB) HeldLeases(ctx context.Context, now time.Time) ([]bot.Lease, error) {
	rows, err := db.pool.Query(ctx, `SELECT name, holder, expires_at FROM leases WHERE expires_at > $1 ORDER BY name COLLATE "C"`, ts(now))
	if err != nil {
		return nil, fmt.Errorf("postgres: leases: %w", err)
	}
	out, err := collect(rows, func(r rowScanner) (bot.Lease, error) {
		var l bot.Lease
		err := r.Scan(&l.Name, &l.Holder, &l.Expires)
		l.Expires = l.Expires.UTC()
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: leases: %w", err)
	}
	return out, nil
}
