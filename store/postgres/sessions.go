package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// errRaced is a transaction given up because another process did the same
// thing first; the caller reads what that one wrote.
var errRaced = errors.New("raced by a concurrent caller")

// SessionFor returns the session bound to t, creating and binding a new one
// when t has none. Concurrent calls for the same new thread, from this
// process or another, all get the same session.
//
// SQLite looked again under its write lock; here the binding is an
// INSERT … ON CONFLICT DO NOTHING, so of several processes binding the
// thread at once one wins, and the others roll back the session they
// made and read the winner's.
func (db *DB) SessionFor(ctx context.Context, t chat.Thread) (string, error) {
	if err := validThread(t); err != nil {
		return "", err
	}
	for {
		// Nearly every call finds a binding.
		id, err := boundSession(ctx, db.pool, t)
		if err == nil {
			return id, nil
		}
		if !noRows(err) {
			return "", fmt.Errorf("postgres: session for %s: %w", t, err)
		}
		err = db.tx(ctx, func(tx pgx.Tx) error {
			id, err = db.bindNewSession(ctx, tx, t, false)
			return err
		})
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, errRaced) {
			return "", fmt.Errorf("postgres: session for %s: %w", t, err)
		}
		// Another caller bound the thread: read its session.
	}
}

// BoundSession returns the session bound to t without creating one; ok is
// false when the bot has never been part of that conversation.
func (db *DB) BoundSession(ctx context.Context, t chat.Thread) (id string, ok bool, err error) {
	if err := validThread(t); err != nil {
		return "", false, err
	}
	id, err = boundSession(ctx, db.pool, t)
	switch {
	case noRows(err):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("postgres: session for %s: %w", t, err)
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
	err := db.tx(ctx, func(tx pgx.Tx) (err error) {
		id, err = db.bindNewSession(ctx, tx, t, true)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("postgres: new session for %s: %w", t, err)
	}
	return id, nil
}

// Session describes session id; an unknown id is store.ErrNotFound.
func (db *DB) Session(ctx context.Context, id string) (store.SessionInfo, error) {
	s := store.SessionInfo{ID: id}
	err := db.pool.QueryRow(ctx, `
		SELECT platform, space, chat, thread, created_at, updated_at,
		       (SELECT count(*) FROM messages WHERE session_id = sessions.id)
		FROM sessions WHERE id = $1`, id,
	).Scan(&s.Thread.Platform, &s.Thread.Space, &s.Thread.Chat, &s.Thread.ID, &s.CreatedAt, &s.UpdatedAt, &s.Messages)
	if noRows(err) {
		return store.SessionInfo{}, fmt.Errorf("postgres: session %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.SessionInfo{}, fmt.Errorf("postgres: session %q: %w", id, err)
	}
	s.CreatedAt, s.UpdatedAt = fromTS(s.CreatedAt), fromTS(s.UpdatedAt)
	return s, nil
}

// boundSession returns the session t is bound to, or pgx.ErrNoRows.
func boundSession(ctx context.Context, q querier, t chat.Thread) (string, error) {
	var id string
	err := q.QueryRow(ctx, `
		SELECT session_id FROM threads
		WHERE platform = $1 AND space = $2 AND chat = $3 AND thread = $4`,
		t.Platform, t.Space, t.Chat, t.ID,
	).Scan(&id)
	return id, err
}

// bindNewSession creates a session for t and binds t to it. With rebind
// it replaces an existing binding (/new); without, an existing binding
// wins and the result is errRaced.
func (db *DB) bindNewSession(ctx context.Context, tx pgx.Tx, t chat.Thread, rebind bool) (string, error) {
	id, now := db.newID(), ts(db.now())
	if _, err := tx.Exec(ctx, `
		INSERT INTO sessions (id, platform, space, chat, thread, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6)`,
		id, t.Platform, t.Space, t.Chat, t.ID, now,
	); err != nil {
		return "", fmt.Errorf("create session: %w", err)
	}
	onConflict := `DO NOTHING`
	if rebind {
		onConflict = `DO UPDATE SET session_id = excluded.session_id, updated_at = excluded.updated_at`
	}
	tag, err := tx.Exec(ctx, `
		INSERT INTO threads (platform, space, chat, thread, session_id, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6)
		ON CONFLICT (platform, space, chat, thread) `+onConflict,
		t.Platform, t.Space, t.Chat, t.ID, id, now,
	)
	if err != nil {
		return "", fmt.Errorf("bind session: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return "", errRaced
	}
	return id, nil
}

func validThread(t chat.Thread) error {
	if t.Platform == "" {
		return fmt.Errorf("postgres: thread %s has no platform", t)
	}
	return nil
}
