package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/store"
)

// FinishTurn marks keys done and keeps t, in one transaction (bot.Inbox),
// as store.DB.FinishTurn does.
func (db *DB) FinishTurn(ctx context.Context, keys []string, t bot.TurnRecord) error {
	var missing []string
	err := db.tx(ctx, func(tx pgx.Tx) error {
		missing = missing[:0]
		done := ts(db.now())
		for _, k := range keys {
			tag, err := tx.Exec(ctx, `
				UPDATE inbox SET status = 'done', done_at = coalesce(done_at, $1), payload = NULL WHERE key = $2`, done, k)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				missing = append(missing, k)
			}
		}
		var latency *int64
		if t.Latency > 0 {
			ms := t.Latency.Milliseconds()
			latency = &ms
		}
		_, err := tx.Exec(ctx, `INSERT INTO turns (at, platform, agent, outcome, latency_ms) VALUES ($1, $2, $3, $4, $5)`,
			ts(t.At), t.Platform, t.Agent, string(t.Outcome), latency)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: finish turn: %w", err)
	}
	if len(missing) > 0 {
		return fmt.Errorf("postgres: inbox keys %q: %w", missing, store.ErrNotFound)
	}
	return nil
}

// TurnsBetween lists the turns that ended in [since, until), oldest first,
// at most limit (bot.TurnBook).
func (db *DB) TurnsBetween(ctx context.Context, since, until time.Time, limit int) ([]bot.TurnRecord, error) {
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	rows, err := db.pool.Query(ctx, `
		SELECT at, platform, agent, outcome, latency_ms FROM turns WHERE at >= $1 AND at < $2 ORDER BY at, id LIMIT $3`,
		ts(since), ts(until), lim)
	if err != nil {
		return nil, fmt.Errorf("postgres: turns: %w", err)
	}
	var (
		out     []bot.TurnRecord
		t       bot.TurnRecord
		outcome string
		latency *int64
	)
	if _, err := pgx.ForEachRow(rows, []any{&t.At, &t.Platform, &t.Agent, &outcome, &latency}, func() error {
		r := t
		r.At, r.Outcome, r.Latency = fromTS(t.At), bot.TurnOutcome(outcome), 0
		if latency != nil {
			r.Latency = time.Duration(*latency) * time.Millisecond
		}
		out = append(out, r)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("postgres: turns: %w", err)
	}
	return out, nil
}
