package discordtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strconv"
	"time"
)

// defaultLimits are the per-route buckets the fake enforces, keyed by
// normalized route and counted per major parameter (channel, guild, token).
// Message create/edit/delete and typing: 5 per 5 s per channel.
func defaultLimits() map[string]Limit {
	five := Limit{Requests: 5, Window: 5 * time.Second}
	return map[string]Limit{
		normalizeRoute("POST /channels/{id}/messages"):        five,
		normalizeRoute("PATCH /channels/{id}/messages/{id}"):  five,
		normalizeRoute("DELETE /channels/{id}/messages/{id}"): five,
		normalizeRoute("POST /channels/{id}/typing"):          five,
	}
}

// otherRoutes is the bucket of routes without a listed limit: generous, but
// it still carries headers as every Discord answer does.
func otherRoutes() Limit { return Limit{Requests: 50, Window: time.Second} }

type window struct {
	count int
	reset time.Time
}

// take counts a request in a fixed window and reports how long until the
// window resets when it is full.
func (w *window) take(l Limit, now time.Time) (full bool, resetAfter time.Duration) {
	if !now.Before(w.reset) {
		w.count, w.reset = 0, now.Add(l.Window)
	}
	if w.count >= l.Requests {
		return true, w.reset.Sub(now)
	}
	w.count++
	return false, w.reset.Sub(now)
}

// limiter is guarded by Server.mu.
type limiter struct {
	enabled bool
	limits  map[string]Limit
	global  Limit
	buckets map[string]*window
	globalW window
	now     func() time.Time
}

func newLimiter(o options) *limiter {
	return &limiter{enabled: o.rateLimits, limits: o.limits, global: o.global,
		buckets: map[string]*window{}, now: time.Now}
}

// rateLimitBody is Discord's 429 body.
type rateLimitBody struct {
	Message    string  `json:"message"`
	RetryAfter float64 `json:"retry_after"`
	Global     bool    `json:"global"`
}

// seconds renders d in seconds rounded up to the millisecond, so a client
// that waits exactly that long is never early.
func seconds(d time.Duration) float64 {
	return math.Ceil(float64(d)/float64(time.Millisecond)) / 1000
}

func fmtSeconds(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }

func bucketHash(key, major string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key + "|" + major))
	return fmt.Sprintf("%016x", h.Sum64())
}

// bucketHeaders are the X-RateLimit-* headers of one answer.
func bucketHeaders(l Limit, remaining int, resetAfter time.Duration, bucket string, now time.Time) http.Header {
	h := http.Header{}
	h.Set("X-RateLimit-Limit", strconv.Itoa(l.Requests))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(remaining, 0)))
	ra := seconds(resetAfter)
	h.Set("X-RateLimit-Reset", fmtSeconds(math.Ceil(float64(now.UnixMilli())+ra*1000)/1000))
	h.Set("X-RateLimit-Reset-After", fmtSeconds(ra))
	h.Set("X-RateLimit-Bucket", bucket)
	return h
}

// tooMany is Discord's 429: Retry-After in whole seconds (rounded up), the
// scope headers and the JSON body with the exact float.
func tooMany(h http.Header, retryAfter time.Duration, global bool) reply {
	if h == nil {
		h = http.Header{}
	}
	h.Set("Retry-After", strconv.Itoa(int(math.Ceil(retryAfter.Seconds()))))
	if global {
		h.Set("X-RateLimit-Global", "true")
		h.Set("X-RateLimit-Scope", "global")
	} else {
		h.Set("X-RateLimit-Scope", "user")
	}
	return reply{status: http.StatusTooManyRequests,
		body: rateLimitBody{Message: "You are being rate limited.", RetryAfter: seconds(retryAfter), Global: global}}
}

// limitLocked counts a call against its bucket and, unless exempt, the
// global limit. It returns the headers for the answer and, when a limit is
// hit, the 429 to send instead (the call then has no effect).
func (s *Server) limitLocked(key, major string, countsGlobal bool) (http.Header, *reply) {
	l := s.limits
	now := l.now()
	lim, ok := l.limits[key]
	if !ok {
		lim = otherRoutes()
	}
	if lim.off() {
		return nil, nil
	}
	bucket := bucketHash(key, major)
	if !l.enabled {
		return bucketHeaders(lim, lim.Requests-1, lim.Window, bucket, now), nil
	}
	if countsGlobal && !l.global.off() {
		if full, after := l.globalW.take(l.global, now); full {
			h := bucketHeaders(l.global, 0, after, bucket, now)
			rep := tooMany(h, after, true)
			return h, &rep
		}
	}
	b, ok := l.buckets[key+"|"+major]
	if !ok {
		b = &window{}
		l.buckets[key+"|"+major] = b
	}
	full, after := b.take(lim, now)
	h := bucketHeaders(lim, lim.Requests-b.count, after, bucket, now)
	if full {
		rep := tooMany(h, after, false)
		return h, &rep
	}
	return h, nil
}

// Fault is an injected failure. Body is the JSON answered; empty means
// Discord's body for Status (a 429 gets the full rate-limit shape).
type Fault struct {
	Status int
	Body   string
}

type injected struct {
	fault      Fault
	retryAfter time.Duration
}

type storm struct {
	ratio      float64
	retryAfter time.Duration
}

// stormAll keys a Storm over every route.
const stormAll = "*"

// FailNext makes the next call of route ("POST /channels/{id}/messages")
// answer f, before authentication and rate limits, with no effect.
func (s *Server) FailNext(route string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := normalizeRoute(route)
	s.faults[key] = append(s.faults[key], injected{fault: f, retryAfter: time.Second})
}

// RateLimitNext makes the next call of route answer Discord's exact 429
// (headers and body) asking to retry after retryAfter.
func (s *Server) RateLimitNext(route string, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := normalizeRoute(route)
	s.faults[key] = append(s.faults[key], injected{fault: Fault{Status: http.StatusTooManyRequests}, retryAfter: retryAfter})
}

// Storm answers each call of the routes (all routes when none are given)
// with a 429 with probability ratio; ratio 0 stops the storm.
func (s *Server) Storm(ratio float64, retryAfter time.Duration, routes ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := []string{stormAll}
	if len(routes) > 0 {
		keys = keys[:0]
		for _, r := range routes {
			keys = append(keys, normalizeRoute(r))
		}
	}
	for _, k := range keys {
		if ratio <= 0 {
			delete(s.storms, k)
			continue
		}
		s.storms[k] = storm{ratio: ratio, retryAfter: retryAfter}
	}
}

// injectedLocked answers a pending fault or a storm hit for the route.
func (s *Server) injectedLocked(key, major string) (reply, http.Header, bool) {
	if q := s.faults[key]; len(q) > 0 {
		s.faults[key] = q[1:]
		rep, h := faultReply(q[0], key, major, s.limits.now())
		return rep, h, true
	}
	st, ok := s.storms[key]
	if !ok {
		st, ok = s.storms[stormAll]
	}
	if ok && s.rng.Float64() < st.ratio {
		rep, h := faultReply(injected{fault: Fault{Status: http.StatusTooManyRequests}, retryAfter: st.retryAfter}, key, major, s.limits.now())
		return rep, h, true
	}
	return reply{}, nil, false
}

func faultReply(in injected, key, major string, now time.Time) (reply, http.Header) {
	f := in.fault
	if f.Status == http.StatusTooManyRequests && f.Body == "" {
		lim := Limit{Requests: 5, Window: in.retryAfter}
		h := bucketHeaders(lim, 0, in.retryAfter, bucketHash(key, major), now)
		return tooMany(h, in.retryAfter, false), h
	}
	if f.Body != "" {
		return reply{status: f.Status, body: json.RawMessage(f.Body)}, nil
	}
	switch f.Status {
	case http.StatusForbidden:
		return fail(errBody(f.Status, codeMissingPermissions, "Missing Permissions")), nil
	default:
		return fail(errBody(f.Status, 0, fmt.Sprintf("%d: %s", f.Status, http.StatusText(f.Status)))), nil
	}
}
