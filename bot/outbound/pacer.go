package outbound

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/parleybot/parley/chat"
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
	Capabilities chat.Capabilities
	// Now and Sleep are the clock (defaults: time.Now and a timer). Sleep
	// returns nil once d has passed, or ctx's error.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// IdleAfter is how long a bucket stays unused before it may be
	// dropped, and how often they are swept (default 1 min): the pacer
	// holds the scopes of the last two IdleAfter. Only full buckets with
	// no penalty and no waiter are dropped, so dropping one never grants
	// extra budget: a new bucket starts full.
	IdleAfter time.Duration
}

// Pacer holds the token buckets that pace one adapter's sends and edits,
// keyed by PaceKey. It also holds what the platform told us: after
// Penalize, every user of the bucket waits out the retry-after, not only
// the caller that got the 429. Safe for concurrent use.
//
// Callers come in three classes (docs/architecture.md, "One reply, one
// message"): final answers (WaitFirst), which people wait for; ordinary
// calls (Wait: notices, prompts, command answers); and streaming frames
// (WaitFrame: drafts, edits of a preview), which the next frame replaces
// anyway. Each bucket serves the classes in that order and each class in
// arrival order, so no final starves behind frames or later finals. A
// frame yields even while it waits first in line, and takes a token only
// when one stays for a final, so when a budget binds a busy bot streams
// less, and never answers later.
type Pacer struct {
	cfg PacerConfig
	// share is how many replicas draw from the bot-wide budgets
	// (SetShare); guarded by mu. 0 and 1 both mean this one alone.
	share int
	// emptyShared has new shared buckets start without burst credit
	// (Rejoin); guarded by mu.
	emptyShared bool
	every       time.Duration
	burst       int

	mu        sync.Mutex
	buckets   map[PaceKey]*paceBucket
	lastSweep time.Time
}

// paceClass orders a bucket's waiters: lower is served first.
type paceClass int

const (
	classFinal paceClass = iota // WaitFirst
	classOrdinary
	classFrame
)

// paceBucket is one scope's budget: a token bucket of its own, rather than
// reservations on a rate.Limiter, so that nobody holds a token before it
// is spent. A waiter that gives up, or a frame that steps back for a
// final, then leaves no debt behind.
type paceBucket struct {
	users    int       // Waits in progress; guarded by Pacer.mu
	lastUsed time.Time // guarded by Pacer.mu

	// base is the budget before this replica's share (pacer_share.go);
	// shared is set for the budgets all replicas draw from.
	base   budget
	shared bool

	mu     sync.Mutex
	every  time.Duration // 0: unpaced
	burst  float64
	tokens float64   // as of at
	at     time.Time // when tokens was last brought up to date
	// until is the end of the platform's penalty; no token is handed out
	// before it.
	until time.Time
	// queue holds the waiters by class, then arrival; only the first one
	// looks at the tokens.
	queue []*paceWaiter
}

// paceWaiter is one caller in a bucket's queue.
type paceWaiter struct {
	class paceClass
	// wake gets a value when the waiter may have become first in line;
	// capacity 1, so a wake-up is never lost nor blocks.
	wake chan struct{}
	// interrupt ends the sleep of a first waiter that another overtakes;
	// nil when it is not sleeping. Guarded by the bucket's mu.
	interrupt context.CancelFunc
}

// NewPacer returns a Pacer for one adapter's budget.
func NewPacer(cfg PacerConfig) *Pacer {
	cfg.Now, cfg.Sleep = clock.Or(cfg.Now, cfg.Sleep)
	if cfg.IdleAfter <= 0 {
		cfg.IdleAfter = time.Minute
	}
	return &Pacer{
		cfg:     cfg,
		every:   cfg.Capabilities.EditEvery,
		burst:   max(cfg.Capabilities.EditBurst, 1),
		buckets: map[PaceKey]*paceBucket{},
	}
}

// Key returns the bucket that messages in t draw from.
func (p *Pacer) Key(t chat.Thread) PaceKey {
	k := PaceKey{Platform: p.cfg.Platform}
	switch p.cfg.Capabilities.EditScope {
	case chat.PacePerWorkspace:
		k.Scope = "space:" + t.Space
	case chat.PaceGlobal:
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
func (p *Pacer) PostKey(t chat.Thread) PaceKey {
	c := p.cfg.Capabilities
	if c.PostEvery <= 0 {
		return p.Key(t)
	}
	return PaceKey{Platform: p.cfg.Platform, Scope: "post:" + t.Space + "/" + t.Chat, every: c.PostEvery, burst: max(c.PostBurst, 1)}
}

// Interval returns the time between two calls on key's budget once its
// burst is spent (0: unpaced).
func (p *Pacer) Interval(key PaceKey) time.Duration {
	every, _ := p.budget(key)
	return max(every, 0)
}

// budget returns the edit interval and burst of key's bucket.
func (p *Pacer) budget(key PaceKey) (time.Duration, int) {
	if key.every > 0 {
		return key.every, key.burst
	}
	return p.every, p.burst
}

// Wait blocks until key's bucket grants one call, or ctx ends. Ordinary
// waiters are served in the order they arrived, after the finals and
// before the frames; a penalty that arrives meanwhile holds them until
// it ends. A waiter whose ctx ends leaves without a trace.
func (p *Pacer) Wait(ctx context.Context, key PaceKey) error {
	return p.waitBoth(ctx, key, classOrdinary)
}

// WaitFirst is Wait ahead of every other class (behind earlier WaitFirst
// callers): a final answer, which people wait for, before notices and
// streaming frames.
func (p *Pacer) WaitFirst(ctx context.Context, key PaceKey) error {
	return p.waitBoth(ctx, key, classFinal)
}

// WaitFrame is Wait for a streaming frame: it is served after every other
// waiter, steps back whenever one arrives, and takes a token only when the
// bucket keeps one more for a final (where its burst allows).
func (p *Pacer) WaitFrame(ctx context.Context, key PaceKey) error {
	return p.waitBoth(ctx, key, classFrame)
}

// Free reports, without taking anything, whether a frame on key would be
// granted now: nobody waits on key's bucket (nor on the bot-wide one), no
// penalty holds it, and a token is there to spare. Delivery asks before
// it starts showing a reply, so that a busy budget goes to answers.
func (p *Pacer) Free(key PaceKey) bool {
	if !p.free(key) {
		return false
	}
	if o, ok := p.overall(); ok {
		return p.free(o)
	}
	return true
}

func (p *Pacer) free(key PaceKey) bool {
	b := p.acquire(key)
	defer p.release(b)
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queue) == 0 && b.delay(p.cfg.Now(), classFrame) <= 0
}

func (p *Pacer) waitBoth(ctx context.Context, key PaceKey, class paceClass) error {
	if err := p.wait(ctx, key, class); err != nil {
		return err
	}
	if o, ok := p.overall(); ok {
		// The scope's token is spent even if ctx ends here: a call that
		// is abandoned this late was about to be made anyway.
		return p.wait(ctx, o, class)
	}
	return nil
}

// overall returns the bot-wide bucket (Capabilities.Overall), if any.
func (p *Pacer) overall() (PaceKey, bool) {
	o := p.cfg.Capabilities.Overall
	if o <= 0 {
		return PaceKey{}, false
	}
	burst := p.cfg.Capabilities.OverallBurst
	if burst <= 0 {
		burst = int(time.Second / o)
	}
	return PaceKey{Platform: p.cfg.Platform, Scope: overallScope, every: o, burst: max(burst, 1)}, true
}

// overallScope is the Scope of the bot-wide bucket (Capabilities.Overall).
const overallScope = "overall"

func (p *Pacer) wait(ctx context.Context, key PaceKey, class paceClass) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b := p.acquire(key)
	defer p.release(b)
	b.mu.Lock()
	if len(b.queue) == 0 && b.delay(p.cfg.Now(), class) <= 0 {
		// The common case, without queueing: nobody waits, a token is there.
		b.take(p.cfg.Now())
		b.mu.Unlock()
		return nil
	}
	w := b.enqueue(class)
	b.mu.Unlock()
	for {
		b.mu.Lock()
		if b.queue[0] != w {
			b.mu.Unlock()
			select {
			case <-w.wake:
				continue
			case <-ctx.Done():
				b.leave(w)
				return ctx.Err()
			}
		}
		now := p.cfg.Now()
		d := b.delay(now, class)
		if d <= 0 {
			b.take(now)
			b.leaveLocked(w)
			b.mu.Unlock()
			return nil
		}
		sctx, interrupt := context.WithCancel(ctx)
		w.interrupt = interrupt
		b.mu.Unlock()
		// Woken early when another waiter goes ahead; a penalty that
		// arrives meanwhile is seen when the delay is computed again.
		err := p.cfg.Sleep(sctx, d)
		b.mu.Lock()
		w.interrupt = nil
		b.mu.Unlock()
		interrupt()
		if err != nil && ctx.Err() != nil {
			b.leave(w)
			return ctx.Err()
		}
	}
}

// enqueue adds a waiter behind those of its class and ahead of the later
// classes. A waiter that goes first in line wakes; the one it overtakes
// stops sleeping on its token and waits for its turn again. Callers hold
// b.mu.
func (b *paceBucket) enqueue(class paceClass) *paceWaiter {
	w := &paceWaiter{class: class, wake: make(chan struct{}, 1)}
	at := len(b.queue)
	for at > 0 && b.queue[at-1].class > class {
		at--
	}
	b.queue = slices.Insert(b.queue, at, w)
	if at == 0 {
		if len(b.queue) > 1 && b.queue[1].interrupt != nil {
			b.queue[1].interrupt()
		}
		w.wake <- struct{}{}
	}
	return w
}

// leave removes w, waking whoever is first in line after it.
func (b *paceBucket) leave(w *paceWaiter) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.leaveLocked(w)
}

func (b *paceBucket) leaveLocked(w *paceWaiter) {
	i := slices.Index(b.queue, w)
	if i < 0 {
		return
	}
	b.queue = slices.Delete(b.queue, i, i+1)
	if i == 0 && len(b.queue) > 0 {
		select {
		case b.queue[0].wake <- struct{}{}:
		default:
		}
	}
}

// refill brings the tokens up to now. Time never runs backwards for the
// bucket, so a clock read late cannot credit tokens twice. Callers hold
// b.mu.
func (b *paceBucket) refill(now time.Time) {
	if !now.After(b.at) {
		return
	}
	if b.every > 0 {
		b.tokens = min(b.burst, b.tokens+float64(now.Sub(b.at))/float64(b.every))
	}
	b.at = now
}

// need is how many tokens a waiter of class must find: a frame leaves one
// for a final where the burst has room for both.
func (b *paceBucket) need(class paceClass) float64 {
	if class == classFrame && b.burst >= 2 {
		return 2
	}
	return 1
}

// delay returns how long until a waiter of class may take a token (0:
// now). Callers hold b.mu.
func (b *paceBucket) delay(now time.Time, class paceClass) time.Duration {
	if now.Before(b.until) {
		return b.until.Sub(now)
	}
	if b.every <= 0 {
		return 0
	}
	b.refill(now)
	need := b.need(class)
	if b.tokens >= need {
		return 0
	}
	return time.Duration((need - b.tokens) * float64(b.every))
}

// take spends one token. Callers hold b.mu.
func (b *paceBucket) take(now time.Time) {
	if b.every <= 0 {
		return
	}
	b.refill(now)
	b.tokens--
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
	b.refill(until)
	b.tokens = min(b.tokens, 1)
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
		b = p.newBucket(key, now)
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
		b.refill(now)
		full := !b.until.After(now) && (b.every <= 0 || b.tokens >= b.burst)
		b.mu.Unlock()
		if full {
			delete(p.buckets, k)
		}
	}
}
