package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/parleybot/parley/store/internal/rowdata"
	"github.com/parleybot/parley/webconsole/signin"
)

// The web console's sign-in records (signin.Auth), as store/console.go
// on SQLite: one-time logins and the sessions they open, each keyed by
// the hash of its secret. Times are the caller's, to the millisecond;
// only RevokeSessions, which is given none, reads the store's clock.

var _ signin.Auth = (*DB)(nil)

// AddLogin keeps l, and prunes the logins that expired more than a day
// before l was created, in the same statement.
func (db *DB) AddLogin(ctx context.Context, l signin.Login) error {
	if l.Hash == "" {
		return fmt.Errorf("postgres: add login: %w", rowdata.ErrNoHash)
	}
	if _, err := db.pool.Exec(ctx, `
		WITH pruned AS (DELETE FROM console_logins WHERE expires < $6)
		INSERT INTO console_logins (hash, user_key, admin, created, expires) VALUES ($1, $2, $3, $4, $5)`,
		l.Hash, l.User, l.Admin, ts(l.Created), ts(l.Expires), ts(l.Created.Add(-rowdata.PruneAfter))); err != nil {
		return fmt.Errorf("postgres: add login: %w", err)
	}
	return nil
}

// UseLogin takes the login hash names with one DELETE … RETURNING: of two
// takers racing, the second waits on the first's row lock and then finds
// the row gone, so it returns nothing. An expired login is deleted all
// the same, and reported not ok.
func (db *DB) UseLogin(ctx context.Context, hash string, now time.Time) (signin.Login, bool, error) {
	l := signin.Login{Hash: hash}
	err := db.pool.QueryRow(ctx, `
		DELETE FROM console_logins WHERE hash = $1
		RETURNING user_key, admin, created, expires`, hash).Scan(&l.User, &l.Admin, &l.Created, &l.Expires)
	if noRows(err) {
		return signin.Login{}, false, nil
	}
	if err != nil {
		return signin.Login{}, false, fmt.Errorf("postgres: use login: %w", err)
	}
	if !l.Expires.After(ts(now)) {
		return signin.Login{}, false, nil
	}
	l.Created, l.Expires = fromTS(l.Created), fromTS(l.Expires)
	return l, true, nil
}

// AddSession keeps s, and prunes the sessions that expired more than a
// day before s was created, revoked or not, in the same statement.
func (db *DB) AddSession(ctx context.Context, s signin.Session) error {
	if s.Hash == "" {
		return fmt.Errorf("postgres: add session: %w", rowdata.ErrNoHash)
	}
	if _, err := db.pool.Exec(ctx, `
		WITH pruned AS (DELETE FROM console_sessions WHERE expires < $8)
		INSERT INTO console_sessions (hash, user_key, admin, csrf, created, expires, agent)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		s.Hash, s.User, s.Admin, s.CSRF, ts(s.Created), ts(s.Expires), s.Agent,
		ts(s.Created.Add(-rowdata.PruneAfter))); err != nil {
		return fmt.Errorf("postgres: add session: %w", err)
	}
	return nil
}

// sessionColumns are a signin.Session's columns, in scanSession's
// order.
const sessionColumns = `hash, user_key, admin, csrf, created, expires, agent`

// LiveSession is the live session hash names at now.
func (db *DB) LiveSession(ctx context.Context, hash string, now time.Time) (signin.Session, bool, error) {
	s, err := scanSession(db.pool.QueryRow(ctx, `
		SELECT `+sessionColumns+` FROM console_sessions
		WHERE hash = $1 AND NOT revoked AND expires > $2`, hash, ts(now)))
	if noRows(err) {
		return signin.Session{}, false, nil
	}
	if err != nil {
		return signin.Session{}, false, fmt.Errorf("postgres: live session: %w", err)
	}
	return s, true, nil
}

// Sessions lists the live sessions at now, newest first (then by hash,
// its bytes: the column is COLLATE "C").
func (db *DB) Sessions(ctx context.Context, now time.Time) ([]signin.Session, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT `+sessionColumns+` FROM console_sessions
		WHERE NOT revoked AND expires > $1
		ORDER BY created DESC, hash`, ts(now))
	if err != nil {
		return nil, fmt.Errorf("postgres: sessions: %w", err)
	}
	out, err := collect(rows, scanSession)
	if err != nil {
		return nil, fmt.Errorf("postgres: sessions: %w", err)
	}
	return out, nil
}

// RevokeSessions ends the live sessions (at the store's clock) whose hash
// starts with prefix, or all of them for "". The prefix is checked
// (rowdata.RevokePrefix) to be hexadecimal, so LIKE sees no wildcard but
// its own "%"; the column is COLLATE "C", so LIKE compares bytes, case
// and all, as SQLite's GLOB does. Sessions already revoked or expired are
// not counted.
func (db *DB) RevokeSessions(ctx context.Context, prefix string) (int, error) {
	prefix, err := rowdata.RevokePrefix(prefix)
	if err != nil {
		return 0, fmt.Errorf("postgres: revoke sessions: %w", err)
	}
	tag, err := db.pool.Exec(ctx, `
		UPDATE console_sessions SET revoked = true
		WHERE NOT revoked AND expires > $1 AND hash LIKE $2::text || '%'`, ts(db.now()), prefix)
	if err != nil {
		return 0, fmt.Errorf("postgres: revoke sessions: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// scanSession scans sessionColumns.
func scanSession(row rowScanner) (signin.Session, error) {
	var s signin.Session
	if err := row.Scan(&s.Hash, &s.User, &s.Admin, &s.CSRF, &s.Created, &s.Expires, &s.Agent); err != nil {
		return signin.Session{}, err
	}
	s.Created, s.Expires = fromTS(s.Created), fromTS(s.Expires)
	return s, nil
}
