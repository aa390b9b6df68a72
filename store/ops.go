package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// What an operator's /metrics and /readyz ask of the database
// (bot/metrics). Each is one indexed count on the read pool, so a scrape
// never waits for the writer.

// PoolStats are the connection pools' counters: the writer's (one
// connection, which every write waits for in turn) and the readers'.
// Wait time on the writer is the store's contention.
func (db *DB) PoolStats() (writer, readers sql.DBStats) {
	return db.w.Stats(), db.r.Stats()
}

// Commits counts the write transactions committed since Open: divided
// by the turns answered, what one turn costs the one writer.
func (db *DB) Commits() int64 { return db.ckpt.commits.Load() }

// Ping checks that the database is open and answers a query.
func (db *DB) Ping(ctx context.Context) error {
	var one int
	if err := db.r.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
		return fmt.Errorf("store: %s does not answer: %w", db.path, err)
	}
	return nil
}

// PendingApprovals counts the approvals waiting for a decision.
func (db *DB) PendingApprovals(ctx context.Context) (int, error) {
	var n int
	err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM approvals WHERE status = 'pending'`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count pending approvals: %w", err)
	}
	return n, nil
}

// DueReminders counts what is due at now and not shown yet: active
// reminders and schedules whose time has come but that the loop has not
// claimed, and claims not yet delivered. Both stay near zero while the
// reminder loop keeps up.
func (db *DB) DueReminders(ctx context.Context, now time.Time) (int, error) {
	var n int
	err := db.r.QueryRowContext(ctx, `
		SELECT
			(SELECT count(*) FROM reminders WHERE status = 'active' AND next <= ?) +
			(SELECT count(*) FROM reminder_claims WHERE delivered_at IS NULL)`,
		millis(now),
	).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count due reminders: %w", err)
	}
	return n, nil
}
