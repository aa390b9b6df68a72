package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/store"
)

// FinishTurn marks keys done and counts t, in one transaction (bot.Inbox),
// as store.DB.FinishTurn does. Replicas counting the same hour meet on
// its row: ON CONFLICT makes the second wait for the first and add to it.
func (db *DB) FinishTurn(ctx context.Context, keys []string, t bot.TurnRecord) error {
	var missing []string
	err := db.tx(ctx, func(tx pgx.Tx) error {
		missing = missing[:0]
		done := ts(db.now())
		for _, k := range keys {
			tag, err := tx.Exec(ctx, markDone, done, k)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				missing = append(missing, k)
			}
		}
		_, err := tx.Exec(ctx, `
			INSERT INTO turn_hours (hour, outcome, latency_ms, n) VALUES ($1, $2, $3, 1)
			ON CONFLICT (hour, outcome, latency_ms) DO UPDATE SET n = turn_hours.n + 1`,
			ts(t.At.Truncate(time.Hour)), string(t.Outcome), bot.LatencyBucket(t.Latency).Milliseconds())
		if err != nil || t.Where.User.ID == "" {
			return err
		}
		w := t.Where
		_, err = tx.Exec(ctx, `
			INSERT INTO chat_people (user_key, platform, space, chat, name, direct, last_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (user_key, platform, space, chat) DO UPDATE
			SET name = coalesce(nullif(excluded.name, ''), chat_people.name), direct = excluded.direct,
			    last_at = greatest(chat_people.last_at, excluded.last_at)`,
			w.User.Key(), w.Thread.Platform, w.Thread.Space, w.Thread.Chat, t.ChatName, w.Direct, ts(t.At))
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

// TurnHours lists the counts of the hours [since, until) (bot.TurnBook),
// by hour, outcome and latency.
func (db *DB) TurnHours(ctx context.Context, since, until time.Time) ([]bot.TurnHour, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT hour, outcome, latency_ms, n FROM turn_hours WHERE hour >= $1 AND hour < $2 ORDER BY hour, outcome, latency_ms`,
		ts(since.Truncate(time.Hour)), ts(until.Truncate(time.Hour)))
	if err != nil {
		return nil, fmt.Errorf("postgres: turn hours: %w", err)
	}
	var (
		out     []bot.TurnHour
		h       bot.TurnHour
		outcome string
		ms      int64
	)
	if _, err := pgx.ForEachRow(rows, []any{&h.Hour, &outcome, &ms, &h.N}, func() error {
		out = append(out, bot.TurnHour{Hour: fromTS(h.Hour), Outcome: bot.TurnOutcome(outcome), Latency: time.Duration(ms) * time.Millisecond, N: h.N})
		return nil
	}); err != nil {
		return nil, fmt.Errorf("postgres: turn hours: %w", err)
	}
	return out, nil
}
