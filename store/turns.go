package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/parleybot/parley/bot"
)

// FinishTurn marks keys done and counts t, in one transaction (bot.Inbox):
// the turn's record costs it no commit of its own. Unknown keys are
// reported once the rest is kept.
func (db *DB) FinishTurn(ctx context.Context, keys []string, t bot.TurnRecord) error {
	var missing []string
	err := db.write(ctx, func(tx *sql.Tx) error {
		missing = missing[:0]
		done := millis(db.now())
		for _, k := range keys {
			res, err := tx.ExecContext(ctx, markDone, done, k)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				missing = append(missing, k)
			}
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO turn_hours (hour, outcome, latency_ms, n) VALUES (?, ?, ?, 1)
			ON CONFLICT (hour, outcome, latency_ms) DO UPDATE SET n = n + 1`,
			millis(t.At.Truncate(time.Hour)), string(t.Outcome), bot.LatencyBucket(t.Latency).Milliseconds())
		if err != nil || t.Where.User.ID == "" {
			return err
		}
		w := t.Where
		_, err = tx.ExecContext(ctx, `
			INSERT INTO chat_people (user_key, platform, space, chat, name, direct, last_at) VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (user_key, platform, space, chat) DO UPDATE
			SET name = coalesce(nullif(excluded.name, ''), name), direct = excluded.direct, last_at = max(last_at, excluded.last_at)`,
			w.User.Key(), w.Thread.Platform, w.Thread.Space, w.Thread.Chat, t.ChatName, w.Direct, millis(t.At))
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

// TurnHours lists the counts of the hours [since, until) (bot.TurnBook),
// by hour, outcome and latency.
func (db *DB) TurnHours(ctx context.Context, since, until time.Time) ([]bot.TurnHour, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT hour, outcome, latency_ms, n FROM turn_hours WHERE hour >= ? AND hour < ? ORDER BY hour, outcome, latency_ms`,
		millis(since.Truncate(time.Hour)), millis(until.Truncate(time.Hour)))
	if err != nil {
		return nil, fmt.Errorf("store: turn hours: %w", err)
	}
	defer rows.Close()
	var out []bot.TurnHour
	for rows.Next() {
		var (
			h        bot.TurnHour
			hour, ms int64
			outcome  string
		)
		if err := rows.Scan(&hour, &outcome, &ms, &h.N); err != nil {
			return nil, fmt.Errorf("store: turn hours: %w", err)
		}
		h.Hour, h.Outcome, h.Latency = fromMillis(hour), bot.TurnOutcome(outcome), time.Duration(ms)*time.Millisecond
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: turn hours: %w", err)
	}
	return out, nil
}
