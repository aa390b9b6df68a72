package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Get returns the value stored under key and whether there is one.
func (db *DB) Get(ctx context.Context, key string) (string, bool, error) {
	var value string
	err := db.pool.QueryRow(ctx, `SELECT value FROM kv WHERE key = $1`, key).Scan(&value)
	if noRows(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("postgres: get %q: %w", key, err)
	}
	return value, true, nil
}

// Set stores value under key, replacing any earlier value.
func (db *DB) Set(ctx context.Context, key, value string) error {
	if _, err := db.pool.Exec(ctx, `
		INSERT INTO kv (key, value, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		key, value, ts(db.now()),
	); err != nil {
		return fmt.Errorf("postgres: set %q: %w", key, err)
	}
	return nil
}

// DeleteStale removes the keys that start with prefix and were last set
// before before, and reports how many.
func (db *DB) DeleteStale(ctx context.Context, prefix string, before time.Time) (int64, error) {
	tag, err := db.pool.Exec(ctx,
		`DELETE FROM kv WHERE starts_with(key, $1) AND updated_at < $2`, prefix, ts(before))
	if err != nil {
		return 0, fmt.Errorf("postgres: delete stale %q: %w", prefix, err)
	}
	return tag.RowsAffected(), nil
}

// KeysWithPrefix returns the keys that start with prefix and were last set
// at or after since, with their values.
func (db *DB) KeysWithPrefix(ctx context.Context, prefix string, since time.Time) (map[string]string, error) {
	rows, err := db.pool.Query(ctx,
		`SELECT key, value FROM kv WHERE starts_with(key, $1) AND updated_at >= $2`, prefix, ts(since))
	if err != nil {
		return nil, fmt.Errorf("postgres: keys with prefix %q: %w", prefix, err)
	}
	out := make(map[string]string)
	var key, value string
	if _, err := pgx.ForEachRow(rows, []any{&key, &value}, func() error {
		out[key] = value
		return nil
	}); err != nil {
		return nil, fmt.Errorf("postgres: keys with prefix %q: %w", prefix, err)
	}
	return out, nil
}
