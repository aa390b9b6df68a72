package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/parleybot/parley/store/internal/rowdata"
	"github.com/parleybot/parley/webconsole/signin"
)

// The web console's sign-in records (signin.Auth): one-time logins
// and the sessions they open, each keyed by the hash of its secret. Times
// are the caller's, to the millisecond; only RevokeSessions, which is
// given none, reads the store's clock.

var _ signin.Auth = (*DB)(nil)

// AddLogin keeps l, and prunes the logins that expired more than a day
// before l was created.
func (db *DB) AddLogin(ctx context.Context, l signin.Login) error {
	if l.Hash == "" {
		return fmt.Errorf("store: add login: %w", rowdata.ErrNoHash)
	}
	err := db.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM console_logins WHERE expires < ?`,
			millis(l.Created.Add(-rowdata.PruneAfter))); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO console_logins (hash, user_key, admin, created, expires) VALUES (?, ?, ?, ?, ?)`,
			l.Hash, l.User, l.Admin, millis(l.Created), millis(l.Expires))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: add login: %w", err)
	}
	return nil
}

// UseLogin takes the login hash names: one DELETE … RETURNING on the
// writer, so of two takers racing, SQLite serializes the statements and
// the second finds no row. An expired login is deleted all the same, and
// reported not ok.
func (db *DB) UseLogin(ctx context.Context, hash string, now time.Time) (signin.Login, bool, error) {
	l := signin.Login{Hash: hash}
	var created, expires int64
	err := db.w.QueryRowContext(ctx, `
		DELETE FROM console_logins WHERE hash = ?
		RETURNING user_key, admin, created, expires`, hash).Scan(&l.User, &l.Admin, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return signin.Login{}, false, nil
	}
	if err != nil {
		return signin.Login{}, false, fmt.Errorf("store: use login: %w", err)
	}
	if expires <= millis(now) {
		return signin.Login{}, false, nil
	}
	l.Created, l.Expires = fromMillis(created), fromMillis(expires)
	return l, true, nil
}

// AddSession keeps s, and prunes the sessions that expired more than a
// day before s was created, revoked or not.
func (db *DB) AddSession(ctx context.Context, s signin.Session) error {
	if s.Hash == "" {
		return fmt.Errorf("store: add session: %w", rowdata.ErrNoHash)
	}
	err := db.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM console_sessions WHERE expires < ?`,
			millis(s.Created.Add(-rowdata.PruneAfter))); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO console_sessions (hash, user_key, admin, csrf, created, expires, agent)
			VALUES (?, ?, ?, ?, ?, ?, ?)`,
			s.Hash, s.User, s.Admin, s.CSRF, millis(s.Created), millis(s.Expires), s.Agent)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: add session: %w", err)
	}
	return nil
}

// sessionColumns are a signin.Session's columns, in scanSession's
// order.
const sessionColumns = `hash, user_key, admin, csrf, created, expires, agent`

// LiveSession is the live session hash names at now.
func (db *DB) LiveSession(ctx context.Context, hash string, now time.Time) (signin.Session, bool, error) {
	s, err := scanSession(db.r.QueryRowContext(ctx, `
		SELECT `+sessionColumns+` FROM console_sessions
		WHERE hash = ? AND NOT revoked AND expires > ?`, hash, millis(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return signin.Session{}, false, nil
	}
	if err != nil {
		return signin.Session{}, false, fmt.Errorf("store: live session: %w", err)
	}
	return s, true, nil
}

// Sessions lists the live sessions at now, newest first (then by hash).
func (db *DB) Sessions(ctx context.Context, now time.Time) ([]signin.Session, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT `+sessionColumns+` FROM console_sessions
		WHERE NOT revoked AND expires > ?
		ORDER BY created DESC, hash`, millis(now))
	if err != nil {
		return nil, fmt.Errorf("store: sessions: %w", err)
	}
	defer rows.Close()
	var out []signin.Session
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: sessions: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: sessions: %w", err)
	}
	return out, nil
}

// RevokeSessions ends the live sessions (at the store's clock) whose hash
// starts with prefix, or all of them for "". The prefix is checked
// (rowdata.RevokePrefix) to be hexadecimal, so GLOB — case-sensitive, as
// the hashes are — sees no wildcard but its own "*". Sessions already
// revoked or expired are not counted.
func (db *DB) RevokeSessions(ctx context.Context, prefix string) (int, error) {
	prefix, err := rowdata.RevokePrefix(prefix)
	if err != nil {
		return 0, fmt.Errorf("store: revoke sessions: %w", err)
	}
	res, err := db.w.ExecContext(ctx, `
		UPDATE console_sessions SET revoked = 1
		WHERE NOT revoked AND expires > ? AND hash GLOB ? || '*'`, millis(db.now()), prefix)
	if err != nil {
		return 0, fmt.Errorf("store: revoke sessions: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("store: revoke sessions: %w", err)
	}
	return int(n), nil
}

// scanSession scans sessionColumns.
func scanSession(row rowScanner) (signin.Session, error) {
	var s signin.Session
	var created, expires int64
	if err := row.Scan(&s.Hash, &s.User, &s.Admin, &s.CSRF, &created, &expires, &s.Agent); err != nil {
		return signin.Session{}, err
	}
	s.Created, s.Expires = fromMillis(created), fromMillis(expires)
	return s, nil
}
