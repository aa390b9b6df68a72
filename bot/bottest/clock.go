package bottest

import (
	"context"
	"sync"
	"time"
)

// Clock is a manual clock for code that takes Now and Sleep functions
// (outbound.PacerConfig, outbound.DeliveryConfig): time moves only when Advance is
// called. Inside a testing/synctest bubble the real clock is already fake
// and usually simpler; Clock is for tests that step time explicitly.
type Clock struct {
	mu       sync.Mutex
	now      time.Time
	sleepers []*sleeper
	changed  chan struct{} // closed and replaced whenever sleepers change
}

type sleeper struct {
	until time.Time
	done  chan struct{}
}

// NewClock returns a clock reading start.
func NewClock(start time.Time) *Clock {
	return &Clock{now: start, changed: make(chan struct{})}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep blocks until Advance has moved the clock d past now, or ctx ends.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	c.mu.Lock()
	s := &sleeper{until: c.now.Add(d), done: make(chan struct{})}
	c.sleepers = append(c.sleepers, s)
	c.notify()
	c.mu.Unlock()
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		for i, x := range c.sleepers {
			if x == s {
				c.sleepers = append(c.sleepers[:i], c.sleepers[i+1:]...)
				c.notify()
				break
			}
		}
		c.mu.Unlock()
		return ctx.Err()
	}
}

// Advance moves the clock forward by d and wakes the sleepers due.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.sleepers[:0]
	for _, s := range c.sleepers {
		if !s.until.After(c.now) {
			close(s.done)
		} else {
			kept = append(kept, s)
		}
	}
	clear(c.sleepers[len(kept):])
	c.sleepers = kept
	c.notify()
}

// WaitSleepers blocks until at least n goroutines are sleeping on the
// clock, or ctx ends: the way to know that the code under test has reached
// its wait before advancing time.
func (c *Clock) WaitSleepers(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		got, ch := len(c.sleepers), c.changed
		c.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// notify wakes WaitSleepers; called with c.mu held.
func (c *Clock) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}
