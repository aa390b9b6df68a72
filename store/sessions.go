package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
)

var _ bot.SessionMap = (*DB)(nil)

// SessionInfo describes one session.
type SessionInfo = bot.SessionInfo

// SessionFor returns the session bound to t, creating and binding a new one
// when t has none. Concurrent calls for the same new thread, from this
// process or another, all get the same session.
func (db *DB) SessionFor(ctx context.Context, t chat.Thread) (string, error) {
	if err := validThread(t); err != nil {
		return "", err
	}
	// Nearly every call finds a binding: look without the write lock first.
	id, err := boundSession(ctx, db.r, t)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("store: session for %s: %w", t, err)
	}
	err = db.write(ctx, func(tx *sql.Tx) error {
		// Look again under the write lock: a concurrent caller may have
		// bound the thread since the read above.
		id, err = boundSession(ctx, tx, t)
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		id, err = db.bindNewSession(ctx, tx, t)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("store: session for %s: %w", t, err)
	}
	return id, nil
}

// BoundSession returns the session bound to t without creating one; ok is
// false when the bot has never been part of that conversation.
func (db *DB) BoundSession(ctx context.Context, t chat.Thread) (id string, ok bool, err error) {
	if err := validThread(t); err != nil {
		return "", false, err
	}
	id, err = boundSession(ctx, db.r, t)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("store: session for %s: %w", t, err)
	}
	return id, true, nil
}

// NewSession creates a session and binds t to it, replacing any earlier
// binding, in one transaction. The earlier session and its transcript stay.
func (db *DB) NewSession(ctx context.Context, t chat.Thread) (string, error) {
	if err := validThread(t); err != nil {
		return "", err
	}
	var id string
	err := db.write(ctx, func(tx *sql.Tx) (err error) {
		id, err = db.bindNewSession(ctx, tx, t)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("store: new session for %s: %w", t, err)
	}
	return id, nil
}

// Session describes session id; an unknown id is ErrNotFound.
func (db *DB) Session(ctx context.Context, id string) (SessionInfo, error) {
	s := SessionInfo{ID: id}
	var created, updated int64
	err := db.r.QueryRowContext(ctx, `
		SELECT platform, space, chat, thread, created_at, updated_at,
		       (SELECT count(*) FROM messages WHERE session_id = sessions.id)
		FROM sessions WHERE id = ?`, id,
	).Scan(&s.Thread.Platform, &s.Thread.Space, &s.Thread.Chat, &s.Thread.ID, &created, &updated, &s.Messages)
	if errors.Is(err, sql.ErrNoRows) {
		return SessionInfo{}, fmt.Errorf("store: session %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return SessionInfo{}, fmt.Errorf("store: session %q: %w", id, err)
	}
	s.CreatedAt, s.UpdatedAt = fromMillis(created), fromMillis(updated)
	return s, nil
}

// queryRower is what boundSession needs of a pool or a transaction.
type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// boundSession returns the session t is bound to, or sql.ErrNoRows.
func boundSession(ctx context.Context, q queryRower, t chat.Thread) (string, error) {
	var id string
	err := q.QueryRowContext(ctx, `
		SELECT session_id FROM threads
		WHERE platform = ? AND space = ? AND chat = ? AND thread = ?`,
		t.Platform, t.Space, t.Chat, t.ID,
	).Scan(&id)
	return id, err
}

// bindNewSession creates a session for t and binds t to it.
func (db *DB) bindNewSession(ctx context.Context, tx *sql.Tx, t chat.Thread) (string, error) {
	id, now := db.newID(), millis(db.now())
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO sessions (id, platform, space, chat, thread, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
		id, t.Platform, t.Space, t.Chat, t.ID, now, now,
	); err != nil {
		return "", fmt.Errorf("create session: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO threads (platform, space, chat, thread, session_id, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (platform, space, chat, thread)
		DO UPDATE SET session_id = excluded.session_id, updated_at = excluded.updated_at`,
		t.Platform, t.Space, t.Chat, t.ID, id, now, now,
	); err != nil {
		return "", fmt.Errorf("bind session: %w", err)
	}
	return id, nil
}

func validThread(t chat.Thread) error {
	if t.Platform == "" {
		return fmt.Errorf("store: thread %s has no platform", t)
	}
	return nil
}
