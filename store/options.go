package store

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// Option configures Open.
type Option func(*config)

type config struct {
	now         func() time.Time
	newID       func() string
	busyTimeout time.Duration
}

func defaultConfig() config {
	return config{now: time.Now, newID: randomID, busyTimeout: 5 * time.Second}
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

// randomID returns 128 random bits in hex: it needs no coordination between
// processes, and an even chance of one collision takes some 2⁶⁴ ids.
func randomID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails: crypto/rand panics rather than return an error
	return hex.EncodeToString(b[:])
}
