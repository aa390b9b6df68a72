package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// What an operator's /metrics and /readyz ask of the database
// (bot/metrics).

// PoolStats are the connection pool's counters in database/sql's shape,
// which bot/metrics reads. There is one pool for reads and writes alike,
// so it is reported as the writer (the pool every write waits for) and
// readers is zero.
func (db *DB) PoolStats() (writer, readers sql.DBStats) {
	s := db.pool.Stat()
	return sql.DBStats{
		MaxOpenConnections: int(s.MaxConns()),
		OpenConnections:    int(s.TotalConns()),
		InUse:              int(s.AcquiredConns()),
		Idle:               int(s.IdleConns()),
		WaitCount:          s.EmptyAcquireCount(),
		WaitDuration:       s.EmptyAcquireWaitTime(),
	}, sql.DBStats{}
}

// Commits counts the transactions of several statements committed since
// Open (bot/metrics' parley_store_commits_total). Unlike SQLite's one
// writer, PostgreSQL commits a single-statement write on its own, and
// those are not counted: the figure is what a turn costs in transactions
// that hold row locks, not every write.
func (db *DB) Commits() int64 { return db.commits.Load() }

// Ping checks that the database answers a query.
func (db *DB) Ping(ctx context.Context) error {
	var one int
	if err := db.pool.QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil {
		return fmt.Errorf("postgres: the database does not answer: %w", err)
	}
	return nil
}

// PendingApprovals counts the approvals waiting for a decision.
func (db *DB) PendingApprovals(ctx context.Context) (int, error) {
	var n int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM approvals WHERE status = 'pending'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count pending approvals: %w", err)
	}
	return n, nil
}

// DueReminders counts what is due at now and not shown yet: active items
// whose time has come but that no loop has claimed, and claims not yet
// delivered.
func (db *DB) DueReminders(ctx context.Context, now time.Time) (int, error) {
	var n int
	err := db.pool.QueryRow(ctx, `
		SELECT
			(SELECT count(*) FROM reminders WHERE status = 'active' AND next <= $1) +
			(SELECT count(*) FROM reminder_claims WHERE delivered_at IS NULL)`,
		ts(now),
	).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("postgres: count due reminders: %w", err)
	}
	return n, nil
}
