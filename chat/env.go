package chat

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// What the program gives an adapter it builds (Env): the server some
// receive on, and the state they keep across restarts. The machinery they share
// (handler groups, bounded caches, the bot's own identity) is in
// bot/adapterkit.

// Mux is where an adapter that receives over HTTP (Slack's HTTP mode,
// Telegram's webhook) registers its handlers when it shares a server
// with other adapters instead of serving its own; the server's owner
// serves it. adapters/inbound.Server is one.
type Mux interface {
	Handle(pattern string, h http.Handler)
}

// PlatformState keeps what an adapter must remember across a restart:
// cursors (Telegram's poll offset, Discord's newest message handled per
// channel) and reply chains. Every method is required, so that no adapter
// finds out at run time that its store cannot prune (and grows forever)
// or cannot list (and recovers nothing). *store.DB implements it.
type PlatformState interface {
	KV
	// DeleteStale removes the keys that start with prefix and were last
	// set before before, and reports how many.
	DeleteStale(ctx context.Context, prefix string, before time.Time) (int64, error)
	// KeysWithPrefix returns the keys that start with prefix and were
	// last set at or after since, with their values.
	KeysWithPrefix(ctx context.Context, prefix string, since time.Time) (map[string]string, error)
}

// KV is the small durable key/value store the router keeps flags in, and
// the core of what adapters keep (PlatformState).
type KV interface {
	// Get returns the value stored under key and whether there is one.
	Get(ctx context.Context, key string) (string, bool, error)
	// Set stores value under key, replacing any earlier value.
	Set(ctx context.Context, key, value string) error
}

// Env is what the program hands the adapter it builds.
type Env struct {
	// Listen is http.listen, where an adapter receiving over HTTP serves
	// when Mux is nil.
	Listen string
	// Mux, when not nil, is the server shared with other adapters and the
	// operator endpoints: an adapter receiving over HTTP registers there.
	Mux Mux
	// State keeps the adapter's cursors across restarts.
	State PlatformState
	// HTTPClient makes the adapter's API calls (counted for metrics); nil:
	// the adapter's default.
	HTTPClient *http.Client
	Logger     *slog.Logger
}
