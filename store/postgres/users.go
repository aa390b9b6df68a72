package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// UpsertUser records the user keyed key ("platform:id"), or updates their
// platform and display name.
func (db *DB) UpsertUser(ctx context.Context, key, platform, name string) error {
	if key == "" {
		return errors.New("postgres: upsert user: no user key")
	}
	if _, err := db.pool.Exec(ctx, `
		INSERT INTO users (key, platform, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
		ON CONFLICT (key) DO UPDATE SET
			platform = excluded.platform, name = excluded.name, updated_at = excluded.updated_at
		WHERE users.platform IS DISTINCT FROM excluded.platform OR users.name IS DISTINCT FROM excluded.name`,
		key, platform, name, ts(db.now()),
	); err != nil {
		return fmt.Errorf("postgres: upsert user %q: %w", key, err)
	}
	return nil
}

// UserName is the display name recorded for the user keyed key; "" when
// none is.
func (db *DB) UserName(ctx context.Context, key string) (string, error) {
	var name *string
	err := db.pool.QueryRow(ctx, `SELECT name FROM users WHERE key = $1`, key).Scan(&name)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("postgres: name of user %q: %w", key, err)
	}
	if name == nil {
		return "", nil
	}
	return *name, nil
}
