package store

import (
	"time"

	"github.com/parleybot/parley/internal/randid"
)

// Option configures Open.
type Option func(*config)

type config struct {
	now         func() time.Time
	newID       func() string
	busyTimeout time.Duration
	// image is what a new database starts as (freshImage); empty, it is
	// built from the migrations open was given.
	image string
}

func defaultConfig() config {
	return config{now: time.Now, newID: randid.New, busyTimeout: 5 * time.Second}
}

// WithClock sets the clock that stamps created_at and updated_at. It is
// called from many goroutines at once.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithIDs sets the generator of session ids, called from many goroutines at
// once. Ids must be unique: creating a session under an id that exists fails.
func WithIDs(newID func() string) Option {
	return func(c *config) { c.newID = newID }
}

// WithBusyTimeout sets how long an operation waits for a lock that another
// process holds before it fails (default 5 s). Within one process writes
// queue on the DB's single writer connection and never wait on this.
func WithBusyTimeout(d time.Duration) Option {
	return func(c *config) { c.busyTimeout = d }
}
