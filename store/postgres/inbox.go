package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/store"
)

// Accept records an inbound event under its durable key
// (docs/architecture.md, Inbox). It reports true the first time a key is
// seen and false every time after, across restarts and across processes:
// the router handles an event only when Accept says true. payload (may be
// nil) is kept so an accepted event can be resumed.
//
// As in SQLite it is one INSERT … ON CONFLICT DO NOTHING: of processes
// accepting the same key at once, PostgreSQL lets the first insert win and
// makes the others wait for its commit and then insert nothing, so exactly
// one sees a row inserted.
func (db *DB) Accept(ctx context.Context, key, platform string, payload []byte) (accepted bool, err error) {
	tag, err := db.pool.Exec(ctx, `
		INSERT INTO inbox (key, platform, payload, status, received_at) VALUES ($1, $2, $3, 'accepted', $4)
		ON CONFLICT (key) DO NOTHING`,
		key, platform, payload, ts(db.now()))
	if err != nil {
		return false, fmt.Errorf("postgres: accept %q: %w", key, err)
	}
	return tag.RowsAffected() == 1, nil
}

// markDone marks one inbox key done (done_at kept from the first time)
// and drops its payload: MarkDone's statement, and FinishTurn's per key.
const markDone = `UPDATE inbox SET status = 'done', done_at = coalesce(done_at, $1), payload = NULL WHERE key = $2`

// MarkDone records that the event keyed key has been handled, and drops
// its payload. Marking it again changes nothing; an unknown key is
// store.ErrNotFound.
func (db *DB) MarkDone(ctx context.Context, key string) error {
	tag, err := db.pool.Exec(ctx, markDone, ts(db.now()), key)
	if err != nil {
		return fmt.Errorf("postgres: mark %q done: %w", key, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: inbox key %q: %w", key, store.ErrNotFound)
	}
	return nil
}

// Unfinished lists events accepted but not yet done, oldest first (seq
// breaks ties, as SQLite's rowid did).
func (db *DB) Unfinished(ctx context.Context) ([]bot.InboxItem, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT key, platform, payload, received_at FROM inbox WHERE status = 'accepted' ORDER BY received_at, seq`)
	if err != nil {
		return nil, fmt.Errorf("postgres: unfinished inbox: %w", err)
	}
	var items []bot.InboxItem
	var it bot.InboxItem
	if _, err := pgx.ForEachRow(rows, []any{&it.Key, &it.Platform, &it.Payload, &it.ReceivedAt}, func() error {
		it.ReceivedAt = fromTS(it.ReceivedAt)
		items = append(items, it)
		it.Payload = nil // the next row scans into a fresh slice
		return nil
	}); err != nil {
		return nil, fmt.Errorf("postgres: unfinished inbox: %w", err)
	}
	return items, nil
}
