package llm

import (
	"math"
	"net/http"
	"strconv"
	"time"
)

// maxRetryAfter bounds what a server may ask for, so an absurd header
// cannot overflow a Duration; the agent caps waits far lower anyway.
const maxRetryAfter = 24 * time.Hour

// RetryAfter reads how long a provider asked to wait: retry-after-ms
// (more precise; OpenAI and Anthropic both send it) first, then Retry-After in seconds or as an HTTP
// date relative to now. Zero when absent or unreadable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			return clampWait(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return clampWait(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return clampWait(float64(t.Sub(now)))
	}
	return 0
}

func clampWait(ns float64) time.Duration {
	switch {
	case math.IsNaN(ns) || ns <= 0:
		return 0
	case ns >= float64(maxRetryAfter):
		return maxRetryAfter
	}
	return time.Duration(ns)
}
