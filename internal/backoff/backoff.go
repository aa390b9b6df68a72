// Package backoff computes how long a retry loop waits after a failure:
// exponential from a base, capped, and jittered so that the clients that
// failed together (a platform outage, a restart of several instances) do
// not all retry in the same instant.
//
// It only computes. Callers wait on their own clock's Sleep (internal/clock
// by default), so that tests can drive every wait.
package backoff

import (
	"math"
	"math/rand/v2"
	"time"
)

// Jitter is how much of a wait is random.
type Jitter int

const (
	// NoJitter waits exactly the ceiling: for a single client whose
	// retries nothing else shares.
	NoJitter Jitter = iota
	// Equal waits uniformly in [ceiling/2, ceiling]: spread, yet never
	// much shorter than planned.
	Equal
	// Full waits uniformly in (0, ceiling]: the widest spread, for many
	// callers hitting one service.
	Full
)

// Policy is exponential backoff: the ceiling of the wait before retry
// attempt (from 0: the wait after the first failure) is Base·2^attempt,
// never more than Cap.
type Policy struct {
	Base time.Duration // the first ceiling; zero or less means no wait
	Cap  time.Duration // the longest ceiling; zero or less means none but overflow
	Jitter
}

// Ceiling is the longest wait before retry attempt.
func (p Policy) Ceiling(attempt int) time.Duration {
	if p.Base <= 0 {
		return 0
	}
	d := p.Base
	// Doubling stops at the cap (or before overflowing), so a loop that
	// counts failures forever costs at most 63 steps here.
	for range max(attempt, 0) {
		if (p.Cap > 0 && d >= p.Cap) || d > math.MaxInt64/2 {
			break
		}
		d *= 2
	}
	if p.Cap > 0 {
		d = min(d, p.Cap)
	}
	return d
}

// Delay is the wait before retry attempt: the ceiling, jittered as
// p.Jitter says.
func (p Policy) Delay(attempt int) time.Duration {
	c := p.Ceiling(attempt)
	if c <= 0 {
		return 0
	}
	switch p.Jitter {
	case Equal:
		return c/2 + rand.N(c/2+1)
	case Full:
		return rand.N(c) + 1
	}
	return c
}
