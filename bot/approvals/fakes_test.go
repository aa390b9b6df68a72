package approvals_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/parleybot/parley/chat"
)

// apAdapter records what approvals send, edit and say privately. (The
// shared fake in bot/bottest is a separate effort; this one is the least
// these tests need.)
type apAdapter struct {
	platform string
	caps     chat.Capabilities

	mu       sync.Mutex
	n        int
	sends    []apSent
	edits    []apEdit
	privates []apPrivate
	// sendErrs are returned by the next Sends, in order.
	sendErrs []error
	// onSend, if set, runs inside Send after the message exists and before
	// Send returns its ref.
	onSend func(ref chat.MessageRef, out chat.Out)
}

type apSent struct {
	Thread chat.Thread
	Out    chat.Out
	Ref    chat.MessageRef
}

type apEdit struct {
	Ref chat.MessageRef
	Out chat.Out
}

type apPrivate struct {
	Thread chat.Thread
	User   chat.User
	Out    chat.Out
}

func newAPAdapter(platform string) *apAdapter {
	return &apAdapter{platform: platform, caps: chat.Capabilities{MaxLen: 2000, SplitAt: 1900, Buttons: true}}
}

func (f *apAdapter) Platform() string                        { return f.platform }
func (f *apAdapter) Capabilities() chat.Capabilities         { return f.caps }
func (f *apAdapter) Run(context.Context, chat.Handler) error { return nil }
func (f *apAdapter) Typing(context.Context, chat.Thread) error {
	return nil
}

func (f *apAdapter) Send(_ context.Context, t chat.Thread, out chat.Out) (chat.MessageRef, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.sendErrs) > 0 {
		err := f.sendErrs[0]
		f.sendErrs = f.sendErrs[1:]
		return chat.MessageRef{}, err
	}
	f.n++
	ref := chat.MessageRef{Thread: t, ID: fmt.Sprintf("m%d", f.n)}
	f.sends = append(f.sends, apSent{t, out, ref})
	if hook := f.onSend; hook != nil {
		f.mu.Unlock()
		hook(ref, out)
		f.mu.Lock()
	}
	return ref, nil
}

func (f *apAdapter) Edit(_ context.Context, ref chat.MessageRef, out chat.Out) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.edits = append(f.edits, apEdit{ref, out})
	return nil
}

func (f *apAdapter) SendPrivate(_ context.Context, t chat.Thread, u chat.User, out chat.Out) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.privates = append(f.privates, apPrivate{t, u, out})
	return nil
}

func (f *apAdapter) failSends(errs ...error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sendErrs = append(f.sendErrs, errs...)
}

func (f *apAdapter) sent() []apSent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]apSent(nil), f.sends...)
}

func (f *apAdapter) edited() []apEdit {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]apEdit(nil), f.edits...)
}

func (f *apAdapter) private() []apPrivate {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]apPrivate(nil), f.privates...)
}

// apClock is a clock the test moves by hand. Every Sleep reports its
// duration on slept when it starts, so a test knows an Approve is waiting
// (or a retry is backing off) before it moves the clock or clicks.
type apClock struct {
	slept chan time.Duration

	mu       sync.Mutex
	now      time.Time
	sleepers []*apSleeper
}

type apSleeper struct {
	until time.Time
	wake  chan struct{}
}

func newAPClock(now time.Time) *apClock {
	return &apClock{now: now, slept: make(chan time.Duration, 100)}
}

func (c *apClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *apClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	s := &apSleeper{until: c.now.Add(d), wake: make(chan struct{})}
	if d <= 0 {
		close(s.wake)
	} else {
		c.sleepers = append(c.sleepers, s)
	}
	c.mu.Unlock()
	c.slept <- d
	select {
	case <-s.wake:
		return ctx.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Advance moves the clock and wakes the sleepers that are due.
func (c *apClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.sleepers[:0]
	for _, s := range c.sleepers {
		if c.now.Before(s.until) {
			kept = append(kept, s)
		} else {
			close(s.wake)
		}
	}
	c.sleepers = kept
}
