package slacktest

import (
	"math"
	"time"
)

// Limit is a token bucket: PerMinute tokens refill evenly over a minute, up
// to Burst. The zero Limit is unlimited.
type Limit struct {
	PerMinute float64
	Burst     int
	// PerChannel keys the bucket by channel as well as by method, as
	// chat.postMessage's ~1/s per channel limit is.
	PerChannel bool
}

func (l Limit) unlimited() bool { return l.PerMinute <= 0 }

// Slack's tiers (docs.slack.dev "Rate limits"): Tier 1 1+/min, Tier 2 20+/min,
// Tier 3 50+/min, Tier 4 100+/min, per method per workspace per app. Slack
// counts per minute and tolerates bursts, so a tier's bucket holds a full
// minute's allowance.
var (
	tier2 = Limit{PerMinute: 20, Burst: 20}
	tier3 = Limit{PerMinute: 50, Burst: 50}
	tier4 = Limit{PerMinute: 100, Burst: 100}
)

func defaultLimits() map[string]Limit {
	return map[string]Limit{
		// "1 per second per channel, short bursts allowed".
		"chat.postMessage": {PerMinute: 60, Burst: 5, PerChannel: true},
		// Tier 3 and shared by every channel of the workspace: N concurrent
		// edit-streams share ~50/min.
		"chat.update":                           tier3,
		"chat.postEphemeral":                    tier4,
		"chat.startStream":                      tier2,
		"chat.stopStream":                       tier2,
		"chat.appendStream":                     tier4,
		"apps.connections.open":                 tier3,
		"assistant.threads.setStatus":           tier3, // "special"; modelled as Tier 3
		"assistant.threads.setSuggestedPrompts": tier3,
		"assistant.threads.setTitle":            tier3,
		"users.info":                            tier4,
		"conversations.info":                    tier3,
		"conversations.members":                 tier4,
		"conversations.replies":                 tier3,
		"conversations.history":                 tier3,
		"auth.test":                             tier4,
		"views.publish":                         tier4,
	}
}

type bucket struct {
	tokens float64
	last   time.Time
}

// limiter holds one bucket per method (and channel, for PerChannel limits).
// It is guarded by Server.mu.
type limiter struct {
	limits  map[string]Limit
	buckets map[string]*bucket
	now     func() time.Time
}

func newLimiter(limits map[string]Limit, now func() time.Time) *limiter {
	m := make(map[string]Limit, len(limits))
	for k, v := range limits {
		m[k] = v
	}
	return &limiter{limits: m, buckets: map[string]*bucket{}, now: now}
}

// take spends a token and reports ok, or reports how long until one is free.
func (l *limiter) take(method, channel string) (ok bool, retryAfter time.Duration) {
	lim, found := l.limits[method]
	if !found || lim.unlimited() {
		return true, 0
	}
	key := method
	if lim.PerChannel {
		key += "/" + channel
	}
	burst := float64(max(lim.Burst, 1))
	now := l.now()
	b, found := l.buckets[key]
	if !found {
		b = &bucket{tokens: burst, last: now}
		l.buckets[key] = b
	}
	perSec := lim.PerMinute / 60
	b.tokens = math.Min(burst, b.tokens+now.Sub(b.last).Seconds()*perSec)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / perSec * float64(time.Second))
}

// SetLimit changes one method's rate limit at run time (zero Limit: off) and
// resets its buckets.
func (s *Server) SetLimit(method string, l Limit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits.limits[method] = l
	for k := range s.limits.buckets {
		if k == method || len(k) > len(method) && k[:len(method)+1] == method+"/" {
			delete(s.limits.buckets, k)
		}
	}
}

// Fault is a failure FailNext injects into a Web API method.
type Fault int

const (
	// FaultRateLimited answers HTTP 429 with Retry-After: 1 and
	// {"ok":false,"error":"ratelimited"}, as Slack does.
	FaultRateLimited Fault = iota + 1
	// FaultServerError answers HTTP 500 with an HTML body, as Slack does.
	FaultServerError
	// FaultDropConnection closes the TCP connection without answering.
	FaultDropConnection
)

func (f Fault) String() string {
	switch f {
	case FaultRateLimited:
		return "rate_limited"
	case FaultServerError:
		return "server_error"
	case FaultDropConnection:
		return "drop_connection"
	}
	return "unknown_fault"
}

type fault struct {
	kind       Fault
	slackErr   string        // for FailNextError
	retryAfter time.Duration // for FailNextRateLimited; 0 means 1 s
}

// FailNext makes the next n calls of method fail with f (a 429 storm, 500s,
// dropped connections), before auth and rate limits are looked at.
func (s *Server) FailNext(method string, n int, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults[method] = append(s.faults[method], fault{kind: f})
	}
}

// FailNextRateLimited makes the next n calls of method answer Slack's 429
// asking to retry after d (rounded up to whole seconds, as Slack sends it).
func (s *Server) FailNextRateLimited(method string, n int, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults[method] = append(s.faults[method], fault{kind: FaultRateLimited, retryAfter: d})
	}
}

// FailNextError makes the next n calls of method answer HTTP 200
// {"ok":false,"error":slackErr}.
func (s *Server) FailNextError(method string, n int, slackErr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults[method] = append(s.faults[method], fault{slackErr: slackErr})
	}
}

// SetStreamingError makes chat.startStream, chat.appendStream and
// chat.stopStream answer {"ok":false,"error":slackErr} (e.g. "missing_scope"
// or "unknown_method") until called again with "".
func (s *Server) SetStreamingError(slackErr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.streamErr = slackErr
}

// popFault removes and returns the next injected fault for method. Callers
// hold s.mu.
func (s *Server) popFault(method string) (fault, bool) {
	q := s.faults[method]
	if len(q) == 0 {
		return fault{}, false
	}
	s.faults[method] = q[1:]
	return q[0], true
}
