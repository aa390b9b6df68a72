package postgres

import (
	"log/slog"
	"time"

	"github.com/parleybot/parley/internal/randid"
)

// Option configures Open. The options mirror store's, so code that builds
// one store can build the other.
type Option func(*config)

type config struct {
	now    func() time.Time
	newID  func() string
	logger *slog.Logger
}

func defaultConfig() config {
	return config{now: time.Now, newID: randid.New, logger: slog.Default()}
}

// WithClock sets the clock that stamps every time the store writes of its
// own accord (created_at, updated_at, received_at …). It is called from
// many goroutines at once. The database's own now() is never used: all
// replicas and the tests run on the clock they were given.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithIDs sets the generator of session ids, called from many goroutines
// at once. Ids must be unique across every process sharing the database:
// creating a session under an id that exists fails.
func WithIDs(newID func() string) Option {
	return func(c *config) { c.newID = newID }
}

// WithLogger sets where Open reports what it found (the vector storage it
// uses). The default is slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}
