package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/parleybot/parley/bot"
)

// Replicas on one database take turns through these (docs/replicas.md).
var (
	_ bot.Leases   = (*DB)(nil)
	_ bot.Replicas = (*DB)(nil)
)

// HoldLease takes name for holder until now+ttl, or extends holder's own
// lease; ok is false while another holder's lease runs at now. It is one
// statement on the writer, so two handles (two processes) racing for a
// free name cannot both win: SQLite serializes the writes and the second
// finds the first's row unexpired. Times are the caller's, to the
// millisecond, never SQLite's or the store's clock: the replicas agree
// on the core's clock, not on this file's.
func (db *DB) HoldLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	if ttl <= 0 {
		return false, fmt.Errorf("store: hold lease %q: ttl %v is not positive", name, ttl)
	}
	res, err := db.w.ExecContext(ctx, `
		INSERT INTO leases (name, holder, expires_at) VALUES (?1, ?2, ?3)
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
		WHERE leases.holder = excluded.holder OR leases.expires_at <= ?4`,
		name, holder, millis(now.Add(ttl)), millis(now))
	if err != nil {
		return false, fmt.Errorf("store: hold lease %q: %w", name, err)
	}
	// The upsert's WHERE refused the update when no row changed.
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: hold lease %q: %w", name, err)
	}
	return n == 1, nil
}

// ReleaseLease ends holder's lease on name at once. The holder is in the
// WHERE so that a replica releasing late, after its lease expired and
// another took it, does not free the other's.
func (db *DB) ReleaseLease(ctx context.Context, name, holder string) error {
	if _, err := db.w.ExecContext(ctx,
		`DELETE FROM leases WHERE name = ? AND holder = ?`, name, holder); err != nil {
		return fmt.Errorf("store: release lease %q: %w", name, err)
	}
	return nil
}

// Beat records replica alive at now and counts the replicas seen at or
// after since, itself included. The count runs in the upsert's
// transaction on the writer, so it always sees this beat.
func (db *DB) Beat(ctx context.Context, replica string, now, since time.Time) (int, error) {
	var live int
	err := db.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO replicas (id, seen_at) VALUES (?, ?)
			ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at`,
			replica, millis(now)); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx,
			`SELECT count(*) FROM replicas WHERE seen_at >= ?`, millis(since)).Scan(&live)
	})
	if err != nil {
		return 0, fmt.Errorf("store: beat %q: %w", replica, err)
	}
	return live, nil
}

// Leave removes replica from the register.
func (db *DB) Leave(ctx context.Context, replica string) error {
	if _, err := db.w.ExecContext(ctx, `DELETE FROM replicas WHERE id = ?`, replica); err != nil {
		return fmt.Errorf("store: leave %q: %w", replica, err)
	}
	return nil
}

// LiveReplicas lists the replicas seen at or after since, by id.
func (db *DB) LiveReplicas(ctx context.Context, since time.Time) ([]bot.Replica, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT id, seen_at FROM replicas WHERE seen_at >= ? ORDER BY id`, millis(since))
	if err != nil {
		return nil, fmt.Errorf("store: replicas: %w", err)
	}
	defer rows.Close()
	var out []bot.Replica
	for rows.Next() {
		var r bot.Replica
		var seen int64
		if err := rows.Scan(&r.ID, &seen); err != nil {
			return nil, fmt.Errorf("store: replicas: %w", err)
		}
		r.SeenAt = fromMillis(seen)
		out = append(out, r)
	}
	return out, rows.Err()
}

// HeldLeases lists the leases unexpired at now, by name.
func (db *DB) HeldLeases(ctx context.Context, now time.Time) ([]bot.Lease, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT name, holder, expires_at FROM leases WHERE expires_at > ? ORDER BY name`, millis(now))
	if err != nil {
		return nil, fmt.Errorf("store: leases: %w", err)
	}
	defer rows.Close()
	var out []bot.Lease
	for rows.Next() {
		var l bot.Lease
		var until int64
		if err := rows.Scan(&l.Name, &l.Holder, &until); err != nil {
			return nil, fmt.Errorf("store: leases: %w", err)
		}
		l.Expires = fromMillis(until)
		out = append(out, l)
	}
	return out, rows.Err()
}
