// Package signin holds what the web console keeps to let people in (both
// store engines implement Auth): one-time sign-in links and the sessions
// they open. A package of its own so that the stores, which the console
// reads, need not import the console. Only hashes of the secrets
// are kept — a copy of the database opens nothing.
package signin

import (
	"context"
	"time"
)

// Login is a one-time sign-in link (parley console login, /console).
type Login struct {
	// Hash is the SHA-256 of the link's token, hex.
	Hash string
	// User is who it signs in: "platform:id", or "operator".
	User string
	// Admin: it opens the admin view.
	Admin   bool
	Created time.Time
	Expires time.Time
}

// Session is a signed-in browser.
type Session struct {
	// Hash is the SHA-256 of the session cookie's value, hex; ID is its
	// first 12 characters, what lists and revocations show.
	Hash  string
	User  string
	Admin bool
	// CSRF is the token every form of the session carries.
	CSRF    string
	Created time.Time
	Expires time.Time
	// Agent is the browser's User-Agent as it signed in, cut to 200
	// characters; for the list of sessions.
	Agent string
}

// Auth keeps logins and sessions.
type Auth interface {
	// AddLogin keeps l.
	AddLogin(ctx context.Context, l Login) error
	// UseLogin takes the login whose token hashes to hash: once, and only
	// before it expires (at now). ok is false for an unknown, used or
	// expired login; a login taken is gone.
	UseLogin(ctx context.Context, hash string, now time.Time) (l Login, ok bool, err error)
	// AddSession keeps s.
	AddSession(ctx context.Context, s Session) error
	// LiveSession is the live session whose cookie hashes to hash (not
	// revoked, not expired at now). (Not "Session": the stores implement
	// bot.SessionMap's Session too.)
	LiveSession(ctx context.Context, hash string, now time.Time) (s Session, ok bool, err error)
	// Sessions lists the live sessions at now, newest first.
	Sessions(ctx context.Context, now time.Time) ([]Session, error)
	// RevokeSessions ends the sessions whose Hash starts with prefix (at
	// least 12 characters), or every session when prefix is "", and says
	// how many it ended.
	RevokeSessions(ctx context.Context, prefix string) (int, error)
}
