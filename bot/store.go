package bot

import "context"

// SessionMap binds conversations to agent sessions. The binding is durable:
// a restart never rebinds a thread (DESIGN.md §3).
type SessionMap interface {
	// SessionFor returns the session bound to t, creating and binding a new
	// one when t has none.
	SessionFor(ctx context.Context, t Thread) (string, error)
	// NewSession binds t to a fresh session (the /new command) and returns it.
	NewSession(ctx context.Context, t Thread) (string, error)
}
