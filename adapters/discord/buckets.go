package discord

import (
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/bwmarrin/discordgo"
)

// discordgo keeps a rate-limit bucket for every route it has called,
// keyed by URL — one per channel for sending, one for editing, one for
// typing, one for GET /channels/{id}, one per interaction token for its
// callback and follow-ups — and never forgets one (bwmarrin/discordgo
// issue 1333). That is ~1 KiB for every conversation Parley ever answered:
// in a soak bringing 200 new people a round the private memory grew with
// each round (docs/footprint.md, Soak). The sweep forgets the buckets no
// request holds whose window is over: such a bucket tells discordgo
// nothing a new one would not (no wait is due, and the next response sets
// the counts again), so the limiter keeps only the routes of the last
// minute or so.

// bucketSweep is how often the idle buckets are forgotten.
const bucketSweep = time.Minute

// bucketSweeper paces the sweep. It runs on the REST path (callOpts), not
// on a receiver's goroutine: every replica that sends grows buckets,
// whether or not it receives a shard.
type bucketSweeper struct {
	last   atomic.Int64 // unix nanoseconds of the last sweep, on the adapter's clock
	broken atomic.Bool  // discordgo's layout changed: said once, not tried again
}

// sweepIfDue forgets discordgo's idle rate-limit buckets when bucketSweep
// has passed since the last sweep; one caller sweeps, the others go on.
func (a *Adapter) sweepIfDue() {
	if a.sweep.broken.Load() {
		return
	}
	now := a.now().UnixNano()
	last := a.sweep.last.Load()
	if now-last < int64(bucketSweep) || !a.sweep.last.CompareAndSwap(last, now) {
		return
	}
	// The windows are discordgo's, on its own clock (time.Now).
	if _, err := pruneBuckets(a.s.Ratelimiter, time.Now()); err != nil {
		a.sweep.broken.Store(true)
		a.log.Warn("cannot forget idle rate-limit buckets; memory grows with the channels answered", "err", err)
	}
}

// pruneBuckets removes from rl the buckets that no request holds and
// whose window ended before now (discordgo's own clock, time.Now), and
// returns how many are left.
func pruneBuckets(rl *discordgo.RateLimiter, now time.Time) (left int, err error) {
	l, err := limiterLayout()
	if err != nil {
		return 0, err
	}
	// GetBucket reads and writes the map under rl's lock; a request holds
	// its bucket's lock from LockBucket to Release, which is when the
	// window is written. TryLock: a held bucket is in use, not idle.
	rl.Lock()
	defer rl.Unlock()
	buckets := l.bucketsOf(rl)
	for key, b := range buckets {
		if !b.TryLock() {
			continue
		}
		if !l.resetOf(b).After(now) {
			delete(buckets, key)
		}
		b.Unlock()
	}
	return len(buckets), nil
}

// layout is where the fields pruneBuckets needs sit in discordgo's
// structs; unexported, so found by name and type.
type layout struct{ buckets, reset uintptr }

// bucketsOf is rl's map of buckets; hold rl's lock.
func (l layout) bucketsOf(rl *discordgo.RateLimiter) map[string]*discordgo.Bucket {
	return *(*map[string]*discordgo.Bucket)(unsafe.Add(unsafe.Pointer(rl), l.buckets))
}

// resetOf is when b's window ends; hold b's lock.
func (l layout) resetOf(b *discordgo.Bucket) time.Time {
	return *(*time.Time)(unsafe.Add(unsafe.Pointer(b), l.reset))
}

var errLayout = errors.New("discordgo's RateLimiter or Bucket has changed: no buckets map or reset time")

var limiterLayout = sync.OnceValues(func() (layout, error) {
	bf, ok := reflect.TypeFor[discordgo.RateLimiter]().FieldByName("buckets")
	if !ok || bf.Type != reflect.TypeFor[map[string]*discordgo.Bucket]() {
		return layout{}, errLayout
	}
	rf, ok := reflect.TypeFor[discordgo.Bucket]().FieldByName("reset")
	if !ok || rf.Type != reflect.TypeFor[time.Time]() {
		return layout{}, errLayout
	}
	return layout{buckets: bf.Offset, reset: rf.Offset}, nil
})
