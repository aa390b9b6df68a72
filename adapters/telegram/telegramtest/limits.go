package telegramtest

import (
	"fmt"
	"math"
	"net/http"
	"time"
)

type rate struct {
	perSecond float64
	burst     float64
}

// Telegram's flood limits (Bots FAQ): about one message per second in a
// private chat, 20 per minute in a group, 30 per second overall. Short bursts
// pass, which the chat buckets' burst of 3 models.
func chatRate(c *chat) rate {
	if c.private() {
		return rate{perSecond: 1, burst: 3}
	}
	return rate{perSecond: 20.0 / 60, burst: 3}
}

func globalRate() rate { return rate{perSecond: 30, burst: 30} }

type bucket struct {
	tokens float64
	last   time.Time
}

// refill brings b up to now and reports how long until it holds a token.
func (b *bucket) refill(r rate, now time.Time) time.Duration {
	b.tokens = math.Min(r.burst, b.tokens+now.Sub(b.last).Seconds()*r.perSecond)
	b.last = now
	if b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) / r.perSecond * float64(time.Second))
}

// limiter holds the per-chat and global buckets. It is guarded by Server.mu.
type limiter struct {
	on     bool
	now    func() time.Time
	chats  map[int64]*bucket
	global *bucket
}

func newLimiter(on bool, now func() time.Time) *limiter {
	return &limiter{on: on, now: now, chats: map[int64]*bucket{}, global: &bucket{tokens: globalRate().burst, last: now()}}
}

// take spends one token from the chat's bucket and the global one, or
// spends nothing and reports how long until both have one.
func (l *limiter) take(c *chat) (wait time.Duration, ok bool) {
	if !l.on {
		return 0, true
	}
	r := chatRate(c)
	now := l.now()
	b, found := l.chats[c.id]
	if !found {
		b = &bucket{tokens: r.burst, last: now}
		l.chats[c.id] = b
	}
	wait = max(b.refill(r, now), l.global.refill(globalRate(), now))
	if wait > 0 {
		return wait, false
	}
	b.tokens--
	l.global.tokens--
	return 0, true
}

// limitLocked applies the flood limits to a message-producing call in c.
func (s *Server) limitLocked(c *chat) error {
	wait, ok := s.limits.take(c)
	if ok {
		return nil
	}
	s.rateLimited++
	return tooManyRequests(retrySeconds(wait))
}

// retrySeconds is retry_after as Telegram sends it: whole seconds, at least 1.
func retrySeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// Fault is an error answer injected into a method.
type Fault struct {
	Status      int    // e.g. 400, 403, 429, 500, 502
	Description string // defaulted from Status when empty
	RetryAfter  int    // seconds, sent as parameters.retry_after
}

func (f Fault) err() error {
	e := &apiError{Code: f.Status, Description: f.Description, RetryAfter: f.RetryAfter}
	if e.Code == 0 {
		e.Code = http.StatusInternalServerError
	}
	if e.Code == http.StatusTooManyRequests && e.RetryAfter <= 0 {
		e.RetryAfter = 1
	}
	if e.Description != "" {
		return e
	}
	switch e.Code {
	case http.StatusBadRequest:
		e.Description = "Bad Request"
	case http.StatusTooManyRequests:
		e.Description = fmt.Sprintf("Too Many Requests: retry after %d", e.RetryAfter)
	default:
		e.Description = http.StatusText(e.Code)
	}
	return e
}

// FailNext makes the next call of method answer f and do nothing else.
// Faults queue up: n calls of FailNext fail the next n calls.
func (s *Server) FailNext(method string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[method] = append(s.faults[method], f)
}

// RateLimitNext makes the next call of method answer Telegram's exact 429,
// with retry_after = retryAfter in whole seconds (rounded up, at least 1).
func (s *Server) RateLimitNext(method string, retryAfter time.Duration) {
	s.FailNext(method, Fault{Status: http.StatusTooManyRequests, RetryAfter: retrySeconds(retryAfter)})
}

func (s *Server) popFaultLocked(method string) (Fault, bool) {
	q := s.faults[method]
	if len(q) == 0 {
		return Fault{}, false
	}
	s.faults[method] = q[1:]
	return q[0], true
}

// storm answers a share of calls to some methods with 429.
type storm struct {
	ratio      float64
	retryAfter int
	methods    map[string]bool
}

// Storm makes each later call of the given methods answer 429 (retry_after
// retryAfter seconds, at least 1) with probability ratio; ratio 0 ends the
// storm. The randomness is seeded by WithSeed. Storm 429s are injected, so
// RateLimited does not count them.
func (s *Server) Storm(ratio float64, retryAfter int, methods ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := make(map[string]bool, len(methods))
	for _, m := range methods {
		set[m] = true
	}
	s.storm = storm{ratio: ratio, retryAfter: max(retryAfter, 1), methods: set}
}

func (s *Server) stormHitLocked(method string) (retryAfter int, hit bool) {
	if s.storm.ratio <= 0 || !s.storm.methods[method] {
		return 0, false
	}
	return s.storm.retryAfter, s.rng.Float64() < s.storm.ratio
}

// DropNext makes the next call of method take effect and then close the
// connection without an answer, like a crash or timeout after success.
func (s *Server) DropNext(method string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drops[method]++
}

func (s *Server) popDropLocked(method string) bool {
	if s.drops[method] == 0 {
		return false
	}
	s.drops[method]--
	return true
}
