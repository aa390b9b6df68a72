package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/parleybot/parley/store/internal/rowdata"
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

// User is a person Parley knows: the users table's row.
type User struct {
	Key      string // "platform:id"
	Platform string
	Name     string // as the chat last showed it; "" when none did
	// Created is when Parley first met them; Updated when their platform
	// or name last changed (a message that changes neither leaves it).
	Created, Updated time.Time
}

// UserFilter says which people Users lists.
type UserFilter struct {
	// Key keeps only the person keyed Key: one person, or none.
	Key string
	// Search keeps the people whose key starts with it (byte for byte) or
	// whose name contains it, ignoring ASCII case; "" keeps everyone.
	Search string
	// After keeps the people whose key sorts after it: the next page.
	After string
}

// Users lists up to limit people f keeps, by key (limit <= 0: no cap).
func (db *DB) Users(ctx context.Context, f UserFilter, limit int) ([]User, error) {
	if limit <= 0 {
		limit = -1 // SQLite's "no limit"
	}
	rows, err := db.r.QueryContext(ctx, `
		SELECT key, platform, name, created_at, updated_at FROM users
		WHERE key > ?1 AND (?5 = '' OR key = ?5)
		  AND (?2 = '' OR substr(key, 1, length(?2)) = ?2 OR name LIKE '%' || ?3 || '%' ESCAPE '\')
		ORDER BY key LIMIT ?4`, f.After, f.Search, rowdata.LikeEscape(f.Search), limit, f.Key)
	if err != nil {
		return nil, fmt.Errorf("store: users: %w", err)
	}
	defer rows.Close()
	var out []User
	for rows.Next() {
		var u User
		var created, updated int64
		if err := rows.Scan(&u.Key, &u.Platform, &u.Name, &created, &updated); err != nil {
			return nil, fmt.Errorf("store: users: %w", err)
		}
		u.Created, u.Updated = fromMillis(created), fromMillis(updated)
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: users: %w", err)
	}
	return out, nil
}
