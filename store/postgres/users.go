package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/internal/rowdata"
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

// Users lists up to limit people f keeps, by key (limit <= 0: no cap).
// Keys compare byte for byte (COLLATE "C") as SQLite's do, so both
// engines page alike.
func (db *DB) Users(ctx context.Context, f store.UserFilter, limit int) ([]store.User, error) {
	var max *int // NULL: no limit
	if limit > 0 {
		max = &limit
	}
	rows, err := db.pool.Query(ctx, `
		SELECT key, platform, name, created_at, updated_at FROM users
		WHERE key COLLATE "C" > $1 AND ($5 = '' OR key = $5)
		  AND ($2 = '' OR starts_with(key, $2) OR name ILIKE '%' || $3 || '%' ESCAPE '\')
		ORDER BY key COLLATE "C" LIMIT $4`, f.After, f.Search, rowdata.LikeEscape(f.Search), max, f.Key)
	if err != nil {
		return nil, fmt.Errorf("postgres: users: %w", err)
	}
	out, err := collect(rows, func(r rowScanner) (store.User, error) {
		var u store.User
		err := r.Scan(&u.Key, &u.Platform, &u.Name, &u.Created, &u.Updated)
		u.Created, u.Updated = fromTS(u.Created), fromTS(u.Updated)
		return u, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: users: %w", err)
	}
	return out, nil
}
