package bot

import (
	"context"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/parleybot/parley/internal/clock"
)

// PaceKey names one edit budget: the platform and the scope whose messages
// share it (docs/peers.md#flood-control). Every reply in the scope draws
// from one bucket, so N concurrent answers in a Slack workspace split
// chat.update's budget instead of each assuming it has all of it.
type PaceKey struct {
	Platform string
	// Scope is "chat:<space>/<chat>", "space:<space>" or "global".
	Scope string
	// every and burst are the scope's budget where Capabilities.PaceOf
	// gives one; zero means the adapter's EditEvery and EditBurst.
	every time.Duration
	burst int
}

// PacerConfig configures a Pacer.
type PacerConfig struct {
	// Platform and Capabilities (EditEvery, EditBurst, EditScope) give the
	// budget of every bucket. EditEvery ≤ 0 means unpaced, though a
	// penalty still holds callers back.
	Platform     string
	Capabilities Capabilities
	// Now and Sleep are the clock (defaults: time.Now and a timer). Sleep
	// returns nil once d has passed, or ctx's error.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// IdleAfter is how long a bucket stays unused before it may be
	// dropped (default 5 min). Only full buckets with no penalty and no
	// waiter are dropped, so dropping one never grants extra budget.
	IdleAfter time.Duration
}

// Pacer holds the token buckets (golang.org/x/time/rate) that pace one
// adapter's sends and edits, keyed by PaceKey. It also holds what the
// platform told us: after Penalize, every user of the bucket waits out the
// retry-after, not only the caller that got the 429. Safe for concurrent
// use.
type Pacer struct {
	cfg   PacerConfig
	every time.Duration
	burst int

	mu        sync.Mutex
	buckets   map[PaceKey]*paceBucket
	lastSweep time.Time
}

// paceBucket is one scope's budget.
type paceBucket struct {
	users    int       // Waits in progress; guarded by Pacer.mu
	lastUsed time.Time // guarded by Pacer.mu

	mu  sync.Mutex
	lim *rate.Limiter
	// until is the end of the platform's penalty; no token is handed out
	// before it.
	until time.Time
	// reservedAt is the latest time passed to the limiter. The limiter
	// moves its notion of "last update" to whatever time it is given, even
	// backwards, which would credit tokens twice; every call therefore
	// uses a time at or after this one.
	reservedAt time.Time
	// queue holds the waiters in arrival order; only the first reserves a
	// token. A limiter cannot take back a reservation made before later
	// ones, so if every waiter reserved, a crowd giving up (deadlines
	// passing under overload) would leave a debt that every later caller
	// queues behind, and an overloaded platform would never recover.
	queue []paceWaiter
}

// paceWaiter is one caller in a bucket's queue.
type paceWaiter struct {
	turn  chan struct{} // closed when it is first in line
	first bool          // WaitFirst: served before the ordinary waiters
}

// enqueue adds a waiter and returns the channel closed when it is first
// in line, and leave, which removes it (handing the turn on if it had it).
// A first waiter goes behind the other first ones but ahead of the
// ordinary ones; never ahead of the head, which may hold a reservation.
func (b *paceBucket) enqueue(first bool) (turn <-chan struct{}, leave func()) {
	w := paceWaiter{turn: make(chan struct{}), first: first}
	b.mu.Lock()
	at := len(b.queue)
	if first {
		for at > 1 && !b.queue[at-1].first {
			at--
		}
	}
	b.queue = slices.Insert(b.queue, at, w)
	if len(b.queue) == 1 {
		close(w.turn)
	}
	b.mu.Unlock()
	return w.turn, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		i := slices.IndexFunc(b.queue, func(q paceWaiter) bool { return q.turn == w.turn })
		b.queue = slices.Delete(b.queue, i, i+1)
		if i == 0 && len(b.queue) > 0 {
			close(b.queue[0].turn)
		}
	}
}

// NewPacer returns a Pacer for one adapter's budget.
func NewPacer(cfg PacerConfig) *Pacer {
	cfg.Now, cfg.Sleep = clock.Or(cfg.Now, cfg.Sleep)
	if cfg.IdleAfter <= 0 {
		cfg.IdleAfter = 5 * time.Minute
	}
	return &Pacer{
		cfg:     cfg,
		every:   cfg.Capabilities.EditEvery,
		burst:   max(cfg.Capabilities.EditBurst, 1),
		buckets: map[PaceKey]*paceBucket{},
	}
}

// Key returns the bucket that messages in t draw from.
func (p *Pacer) Key(t Thread) PaceKey {
	k := PaceKey{Platform: p.cfg.Platform}
	switch p.cfg.Capabilities.EditScope {
	case PacePerWorkspace:
		k.Scope = "space:" + t.Space
	case PaceGlobal:
		k.Scope = "global"
	default:
		k.Scope = "chat:" + t.Space + "/" + t.Chat
	}
	if of := p.cfg.Capabilities.PaceOf; of != nil {
		k.every, k.burst = of(t)
		k.burst = max(k.burst, 1)
	}
	return k
}

// PostKey returns the bucket that new messages in t draw from: their own
// per chat when the adapter gives posts a budget (Capabilities.PostEvery),
// else the edits' (Key).
func (p *Pacer) PostKey(t Thread) PaceKey {
	c := p.cfg.Capabilities
	if c.PostEvery <= 0 {
		return p.Key(t)
	}
	return PaceKey{Platform: p.cfg.Platform, Scope: "post:" + t.Space + "/" + t.Chat, every: c.PostEvery, burst: max(c.PostBurst, 1)}
}

// budget returns the edit interval and burst of key's bucket.
func (p *Pacer) budget(key PaceKey) (time.Duration, int) {
	if key.every > 0 {
		return key.every, key.burst
	}
	return p.every, p.burst
}

// Wait blocks until key's bucket grants one call, or ctx ends. Waiters are
// served in the order they arrived; a penalty that arrives while the first
// sleeps sends it to the end of the penalty. A waiter whose ctx ends
// leaves without a trace: its reserved token goes back to the bucket.
func (p *Pacer) Wait(ctx context.Context, key PaceKey) error {
	return p.waitBoth(ctx, key, false)
}

// WaitFirst is Wait ahead of the ordinary waiters (behind earlier
// WaitFirst callers): a final answer, which people wait for, before
// streaming frames that the next one replaces anyway.
func (p *Pacer) WaitFirst(ctx context.Context, key PaceKey) error {
	return p.waitBoth(ctx, key, true)
}

func (p *Pacer) waitBoth(ctx context.Context, key PaceKey, first bool) error {
	if err := p.wait(ctx, key, first); err != nil {
		return err
	}
	if o := p.cfg.Capabilities.Overall; o > 0 {
		// The scope's token is spent even if ctx ends here: a call that
		// is abandoned this late was about to be made anyway.
		return p.wait(ctx, PaceKey{Platform: p.cfg.Platform, Scope: overallScope, every: o, burst: max(int(time.Second/o), 1)}, first)
	}
	return nil
}

// overallScope is the Scope of the bot-wide bucket (Capabilities.Overall).
const overallScope = "overall"

func (p *Pacer) wait(ctx context.Context, key PaceKey, first bool) error {
	b := p.acquire(key)
	defer p.release(b)
	turn, leave := b.enqueue(first)
	defer leave()
	select {
	case <-turn:
	case <-ctx.Done():
		return ctx.Err()
	}
	for {
		b.mu.Lock()
		now := p.cfg.Now()
		at := latest(now, b.until, b.reservedAt)
		r := b.lim.ReserveN(at, 1)
		b.reservedAt = at
		delay := r.DelayFrom(now)
		b.mu.Unlock()
		if delay <= 0 {
			return nil
		}
		if err := p.cfg.Sleep(ctx, delay); err != nil {
			b.mu.Lock()
			at := latest(p.cfg.Now(), b.reservedAt)
			r.CancelAt(at)
			b.reservedAt = at
			b.mu.Unlock()
			return err
		}
		b.mu.Lock()
		penalized := b.until.After(p.cfg.Now())
		b.mu.Unlock()
		if !penalized {
			return nil
		}
		// The platform said "wait" after this token was reserved: the
		// token is forfeit, and this caller queues again behind the
		// penalty.
	}
}

// Penalize makes every user of key's bucket wait retryAfter from now: the
// platform answered 429 and told us how long. The bucket resumes with one
// token rather than a full burst, so the waiters that piled up during the
// penalty do not trip the limit again at once.
func (p *Pacer) Penalize(key PaceKey, retryAfter time.Duration) {
	if retryAfter <= 0 {
		return
	}
	b := p.acquire(key)
	defer p.release(b)
	b.mu.Lock()
	defer b.mu.Unlock()
	until := p.cfg.Now().Add(retryAfter)
	if !until.After(b.until) {
		return // an equal or longer penalty is already in force
	}
	b.until = until
	if _, burst := p.budget(key); burst > 1 {
		at := latest(until, b.reservedAt)
		b.lim.ReserveN(at, burst-1)
		b.reservedAt = at
	}
}

// bucketCount returns how many buckets the pacer holds.
func (p *Pacer) bucketCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.buckets)
}

// acquire returns key's bucket, creating it, and marks it in use so that
// a sweep leaves it alone.
func (p *Pacer) acquire(key PaceKey) *paceBucket {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.cfg.Now()
	if now.Sub(p.lastSweep) >= p.cfg.IdleAfter {
		p.sweep(now)
	}
	b, ok := p.buckets[key]
	if !ok {
		every, burst := p.budget(key)
		b = &paceBucket{lim: rate.NewLimiter(rate.Every(every), burst)}
		p.buckets[key] = b
	}
	b.users++
	return b
}

func (p *Pacer) release(b *paceBucket) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b.users--
	b.lastUsed = p.cfg.Now()
}

// sweep drops buckets that are idle and indistinguishable from a new one
// (full, no penalty), which keeps memory bounded by the scopes active
// within IdleAfter. It runs at most once per IdleAfter, under p.mu, so its
// cost is amortized over every Wait of that period.
func (p *Pacer) sweep(now time.Time) {
	p.lastSweep = now
	for k, b := range p.buckets {
		if b.users > 0 || now.Sub(b.lastUsed) < p.cfg.IdleAfter {
			continue
		}
		b.mu.Lock()
		full := !b.until.After(now) && b.lim.TokensAt(latest(now, b.reservedAt)) >= float64(b.lim.Burst())
		b.mu.Unlock()
		if full {
			delete(p.buckets, k)
		}
	}
}

// latest returns the latest of ts.
func latest(ts ...time.Time) time.Time {
	var l time.Time
	for _, t := range ts {
		if t.After(l) {
			l = t
		}
	}
	return l
}
