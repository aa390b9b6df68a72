package chat

import (
	"context"
	"net/http"
	"time"
)

// What adapters share beyond Adapter itself: the server some receive on,
// and the state they keep across restarts. The machinery they share
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

// Placeholder is what a new message of a reply shows until it is edited
// to show its text: answer text only ever reaches a message by an edit. An
// adapter that cannot take back what it showed (a terminal) may show
// nothing for it and wait for the edit.
const Placeholder = "…"

// KV is the small durable key/value store the router keeps flags in, and
// the core of what adapters keep (PlatformState).
type KV interface {
	// Get returns the value stored under key and whether there is one.
	Get(ctx context.Context, key string) (string, bool, error)
	// Set stores value under key, replacing any earlier value.
	Set(ctx context.Context, key, value string) error
}
