package websearch

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"
)

// KV is the store the per-person limit keeps its counts in (the store's
// kv table, which replicas share), as bot's token budget does.
type KV interface {
	Get(ctx context.Context, key string) (string, bool, error)
	Set(ctx context.Context, key, value string) error
}

// Limit holds each person to PerHour searches an hour, in bursts of as
// many: a bucket refilled evenly (GCRA), kept as one time per person in
// KV, so a restart forgives nothing and replicas share it. Two replicas
// searching for one person in the same instant may both pass one search
// over it: the read and the write are not one transaction, as for the
// daily token budget.
type Limit struct {
	PerHour int
	KV      KV
	Now     func() time.Time // nil: time.Now
	// Exempt are people ("platform:id") the limit does not hold: the
	// admins, as bot's turn rate spares them.
	Exempt []string

	mu sync.Mutex // one read-modify-write at a time in this process
}

// limitKey holds when who's bucket is full again, as Unix milliseconds
// ("theoretical arrival time" of the next search).
func limitKey(who string) string { return "web_search:" + who }

// Take spends one of who's searches; wait > 0 says it was refused and
// when the next one is free.
func (l *Limit) Take(ctx context.Context, who string) (wait time.Duration, err error) {
	if l == nil || l.PerHour <= 0 || slices.Contains(l.Exempt, who) {
		return 0, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if l.Now != nil {
		now = l.Now()
	}
	tat := now
	v, ok, err := l.KV.Get(ctx, limitKey(who))
	if err != nil {
		return 0, fmt.Errorf("web_search: reading the search limit: %w", err)
	}
	if ok {
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil && time.UnixMilli(ms).After(now) {
			tat = time.UnixMilli(ms)
		}
	}
	next := tat.Add(time.Hour / time.Duration(l.PerHour))
	if over := next.Sub(now) - time.Hour; over > 0 {
		return over, nil
	}
	if err := l.KV.Set(ctx, limitKey(who), strconv.FormatInt(next.UnixMilli(), 10)); err != nil {
		return 0, fmt.Errorf("web_search: keeping the search limit: %w", err)
	}
	return 0, nil
}
