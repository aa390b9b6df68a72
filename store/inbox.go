package store

import (
	"context"
	"fmt"

	"github.com/parleybot/parley/bot"
)

// Accept records an inbound event under its durable key
// (docs/architecture.md, Inbox). It reports true the first time a key is
// seen and false every time after, across restarts: the router handles an
// event only when Accept says true. payload (the core's versioned inbox
// record, may be nil) is kept so an accepted event can be resumed.
func (db *DB) Accept(ctx context.Context, key, platform string, payload []byte) (accepted bool, err error) {
	res, err := db.w.ExecContext(ctx, `
		INSERT INTO inbox (key, platform, payload, status, received_at) VALUES (?, ?, ?, 'accepted', ?)
		ON CONFLICT (key) DO NOTHING`,
		key, platform, payload, millis(db.now()))
	if err != nil {
		return false, fmt.Errorf("store: accept %q: %w", key, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: accept %q: %w", key, err)
	}
	return n == 1, nil
}

// markDone marks one inbox key done (done_at kept from the first time)
// and drops its payload: MarkDone's statement, and FinishTurn's per key.
const markDone = `UPDATE inbox SET status = 'done', done_at = coalesce(done_at, ?), payload = NULL WHERE key = ?`

// MarkDone records that the event keyed key has been handled, and drops
// its payload: the key is all dedupe needs, and the text people wrote lives
// on only in their conversation (which /new and /memory clear govern).
// Marking it again changes nothing; an unknown key is ErrNotFound.
func (db *DB) MarkDone(ctx context.Context, key string) error {
	res, err := db.w.ExecContext(ctx, markDone, millis(db.now()), key)
	if err != nil {
		return fmt.Errorf("store: mark %q done: %w", key, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: mark %q done: %w", key, err)
	} else if n == 0 {
		return fmt.Errorf("store: inbox key %q: %w", key, ErrNotFound)
	}
	return nil
}

// Unfinished lists events accepted but not yet done, oldest first: what a
// crash interrupted, for the router to resume at start.
func (db *DB) Unfinished(ctx context.Context) ([]bot.InboxItem, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT key, platform, payload, received_at FROM inbox WHERE status = 'accepted' ORDER BY received_at, rowid`)
	if err != nil {
		return nil, fmt.Errorf("store: unfinished inbox: %w", err)
	}
	defer rows.Close()
	var items []bot.InboxItem
	for rows.Next() {
		var it bot.InboxItem
		var received int64
		if err := rows.Scan(&it.Key, &it.Platform, &it.Payload, &received); err != nil {
			return nil, fmt.Errorf("store: unfinished inbox: %w", err)
		}
		it.ReceivedAt = fromMillis(received)
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unfinished inbox: %w", err)
	}
	return items, nil
}
