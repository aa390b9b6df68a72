// Package changes tells waiters that some state changed, so that tests of
// the in-process platform fakes (slacktest, telegramtest, discordtest)
// wait for a condition instead of sleeping.
package changes

import (
	"context"
	"errors"
	"sync"
)

// ErrClosed is what WaitFor returns once the feed is closed and its
// condition still does not hold.
var ErrClosed = errors.New("changes: closed")

// Feed broadcasts "something changed". Its methods are safe for
// concurrent use.
type Feed struct {
	mu        sync.Mutex
	next      chan struct{} // closed and replaced by Notify
	closed    chan struct{}
	closeOnce sync.Once
}

// New returns an open Feed.
func New() *Feed {
	return &Feed{next: make(chan struct{}), closed: make(chan struct{})}
}

// Notify wakes everyone holding the current Next channel.
func (f *Feed) Notify() {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(f.next)
	f.next = make(chan struct{})
}

// Next returns a channel that is closed at the next Notify. Take it before
// looking at the state, so that a change in between is not missed.
func (f *Feed) Next() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.next
}

// Closed returns a channel that is closed by Close.
func (f *Feed) Closed() <-chan struct{} { return f.closed }

// Close ends every WaitFor, now and later, after one last look at its
// condition.
func (f *Feed) Close() { f.closeOnce.Do(func() { close(f.closed) }) }

// WaitFor blocks until cond returns true, ctx ends (its cause is
// returned) or the feed is closed (ErrClosed). cond is checked at once
// and after every Notify; it must not call WaitFor.
func (f *Feed) WaitFor(ctx context.Context, cond func() bool) error {
	for {
		next := f.Next()
		if cond() {
			return nil
		}
		select {
		case <-next:
		case <-f.closed:
			if cond() {
				return nil
			}
			return ErrClosed
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}
