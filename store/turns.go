package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/parleybot/parley/bot"
)

// FinishTurn marks keys done and keeps t, in one transaction (bot.Inbox):
// the turn's record costs it no commit of its own. Unknown keys are
// reported once the rest is kept.
func (db *DB) FinishTurn(ctx context.Context, keys []string, t bot.TurnRecord) error {
	var missing []string
	err := db.write(ctx, func(tx *sql.Tx) error {
		missing = missing[:0]
		done := millis(db.now())
		for _, k := range keys {
			res, err := tx.ExecContext(ctx, `
				UPDATE inbox SET status = 'done', done_at = coalesce(done_at, ?), payload = NULL WHERE key = ?`, done, k)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				missing = append(missing, k)
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO turns (at, platform, agent, outcome, latency_ms) VALUES (?, ?, ?, ?, ?)`,
			millis(t.At), t.Platform, t.Agent, string(t.Outcome), latencyMillis(t.Latency))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: finish turn: %w", err)
	}
	if len(missing) > 0 {
		return fmt.Errorf("store: inbox keys %q: %w", missing, ErrNotFound)
	}
	return nil
}

// latencyMillis is a turn's latency as kept: NULL when unknown.
func latencyMillis(d time.Duration) sql.NullInt64 {
	return sql.NullInt64{Int64: d.Milliseconds(), Valid: d > 0}
}

// TurnsBetween lists the turns that ended in [since, until), oldest first,
// at most limit (bot.TurnBook).
func (db *DB) TurnsBetween(ctx context.Context, since, until time.Time, limit int) ([]bot.TurnRecord, error) {
	if limit <= 0 {
		limit = -1 // SQLite's "no limit"
	}
	rows, err := db.r.QueryContext(ctx, `
		SELECT at, platform, agent, outcome, latency_ms FROM turns WHERE at >= ? AND at < ? ORDER BY at, id LIMIT ?`,
		millis(since), millis(until), limit)
	if err != nil {
		return nil, fmt.Errorf("store: turns: %w", err)
	}
	defer rows.Close()
	var out []bot.TurnRecord
	for rows.Next() {
		var (
			t       bot.TurnRecord
			at      int64
			outcome string
			latency sql.NullInt64
		)
		if err := rows.Scan(&at, &t.Platform, &t.Agent, &outcome, &latency); err != nil {
			return nil, fmt.Errorf("store: turns: %w", err)
		}
		t.At, t.Outcome, t.Latency = fromMillis(at), bot.TurnOutcome(outcome), time.Duration(latency.Int64)*time.Millisecond
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: turns: %w", err)
	}
	return out, nil
}
