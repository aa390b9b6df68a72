package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/parleybot/parley/chat"
)

// The adapters keep their cursors and reply chains here.
var _ chat.PlatformState = (*DB)(nil)

// Get returns the value stored under key and whether there is one. The kv
// table holds small values that must survive a restart, such as platform
// cursors.
func (db *DB) Get(ctx context.Context, key string) (string, bool, error) {
	var value string
	err := db.r.QueryRowContext(ctx, `SELECT value FROM kv WHERE key = ?`, key).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("store: get %q: %w", key, err)
	}
	return value, true, nil
}

// Set stores value under key, replacing any earlier value.
func (db *DB) Set(ctx context.Context, key, value string) error {
	if _, err := db.w.ExecContext(ctx, `
		INSERT INTO kv (key, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		key, value, millis(db.now()),
	); err != nil {
		return fmt.Errorf("store: set %q: %w", key, err)
	}
	return nil
}

// DeleteStale removes the keys that start with prefix and were last set
// before before, and reports how many. Records that matter only for a
// while (Telegram's reply-chain map) are pruned this way.
func (db *DB) DeleteStale(ctx context.Context, prefix string, before time.Time) (int64, error) {
	res, err := db.w.ExecContext(ctx,
		`DELETE FROM kv WHERE substr(key, 1, length(?1)) = ?1 AND updated_at < ?2`, prefix, millis(before))
	if err != nil {
		return 0, fmt.Errorf("store: delete stale %q: %w", prefix, err)
	}
	return res.RowsAffected()
}

// KeysWithPrefix returns the keys that start with prefix and were last set
// at or after since, with their values. Adapters list their cursors this
// way at start (Discord's newest message seen per channel), ignoring
// those too old to matter.
func (db *DB) KeysWithPrefix(ctx context.Context, prefix string, since time.Time) (map[string]string, error) {
	rows, err := db.r.QueryContext(ctx,
		`SELECT key, value FROM kv WHERE substr(key, 1, length(?1)) = ?1 AND updated_at >= ?2`, prefix, millis(since))
	if err != nil {
		return nil, fmt.Errorf("store: keys with prefix %q: %w", prefix, err)
	}
	defer rows.Close()
	out := make(map[string]string)
	for rows.Next() {
		var key, value string
		if err := rows.Scan(&key, &value); err != nil {
			return nil, fmt.Errorf("store: keys with prefix %q: %w", prefix, err)
		}
		out[key] = value
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: keys with prefix %q: %w", prefix, err)
	}
	return out, nil
}
