package agent

import (
	"time"

	"github.com/parleybot/parley/internal/backoff"
)

// RetryPolicy bounds retries of failed model calls. The SDKs' own retries
// are off: this is the one retry layer, so every retry is visible as an
// EventRetry.
type RetryPolicy struct {
	MaxAttempts int           // total attempts per model call; default 5
	Base        time.Duration // first backoff ceiling; default 1 s
	Cap         time.Duration // longest wait; default 30 s
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 5
	}
	if p.Base <= 0 {
		p.Base = time.Second
	}
	if p.Cap <= 0 {
		p.Cap = 30 * time.Second
	}
	return p
}

// wait returns how long to wait after the given failed attempt: the
// server's Retry-After when it sent one, else exponential backoff with full
// jitter. ok is false when the server asks for more than the cap: waiting
// that long inside a chat turn helps no one, so the error is shown instead.
func (p RetryPolicy) wait(attempt int, retryAfter time.Duration) (d time.Duration, ok bool) {
	if retryAfter > 0 {
		return retryAfter, retryAfter <= p.Cap
	}
	// Full jitter: many turns hit one provider, and their retries must
	// not arrive together. attempt counts from 1, backoff from 0.
	return backoff.Policy{Base: p.Base, Cap: p.Cap, Jitter: backoff.Full}.Delay(attempt - 1), true
}
