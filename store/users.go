package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// UpsertUser records the user keyed key ("platform:id"), or updates their
// platform and display name.
func (db *DB) UpsertUser(ctx context.Context, key, platform, name string) error {
	if key == "" {
		return errors.New("store: upsert user: no user key")
	}
	now := millis(db.now())
	if _, err := db.w.ExecContext(ctx, `
		INSERT INTO users (key, platform, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET
			platform = excluded.platform, name = excluded.name, updated_at = excluded.updated_at
		WHERE platform IS NOT excluded.platform OR name IS NOT excluded.name`,
		key, platform, name, now, now,
	); err != nil {
		return fmt.Errorf("store: upsert user %q: %w", key, err)
	}
	return nil
}

// UserName is the display name recorded for the user keyed key; "" when
// none is.
func (db *DB) UserName(ctx context.Context, key string) (string, error) {
	var name sql.NullString
	err := db.r.QueryRowContext(ctx, `SELECT name FROM users WHERE key = ?`, key).Scan(&name)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("store: name of user %q: %w", key, err)
	}
	return name.String, nil
}
