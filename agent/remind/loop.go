package remind

import (
	"cmp"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/parleybot/parley/internal/backoff"
	"github.com/parleybot/parley/internal/clock"
)

// DefaultGrace is how late an occurrence may be delivered before it
// counts as missed, unless Loop.Grace says otherwise.
const DefaultGrace = time.Hour

// Loop is the one background loop that delivers due items. It sleeps
// until the earliest Next (no polling), or until Wake, claims what is due
// and hands each claim to Deliver, one at a time; run one Loop per
// database.
//
// Delivery is at least once. A claim is marked delivered only after
// Deliver returned nil; a claim whose Deliver failed, or whose process
// stopped before it was marked, stays pending and is delivered again: at
// the next start first of all, and after a failure with backoff, until it
// succeeds. So Deliver must be idempotent per Claim.Key (the bot keys its
// outbox record, or the inbox item of a scheduled turn, by it), and quick:
// it records durable work (the message in the outbox, the turn in the
// inbox) rather than running a turn inline, since the loop waits for it.
// Deliver returns an error only for what a retry may fix; a claim that can
// never be delivered (the chat is gone) it handles itself and returns nil.
type Loop struct {
	Store Store
	// Grace: an occurrence later than this is missed (default
	// DefaultGrace).
	Grace time.Duration
	// Batch is how many claims one transaction takes (default 100).
	Batch int
	// MaxSleep is the longest the loop sleeps without looking (default
	// 5 min): a safety net, not a poll. A timer does not count time the
	// machine spent suspended, and the wall clock can be corrected while
	// the loop sleeps; either would otherwise delay a due item by as
	// much.
	MaxSleep time.Duration
	// Retry paces redelivery after a failure (default 5 s doubling to
	// 10 min, equal jitter).
	Retry backoff.Policy
	Now   func() time.Time
	Sleep func(context.Context, time.Duration) error
	// Logger receives what went wrong and what was delivered; nil
	// discards.
	Logger *slog.Logger

	wakeOnce sync.Once
	wake     chan struct{}
}

// Wake makes the loop look at the store now rather than when it planned
// to: call it after adding, resuming or cancelling an item, so that an
// item due before the loop's next planned wake is noticed. It never
// blocks, and wakes a loop that is not sleeping yet as soon as it sleeps.
func (l *Loop) Wake() {
	select {
	case l.wakeC() <- struct{}{}:
	default: // a wake is already pending: one is enough
	}
}

func (l *Loop) wakeC() chan struct{} {
	l.wakeOnce.Do(func() { l.wake = make(chan struct{}, 1) })
	return l.wake
}

// Run delivers until ctx ends. It first delivers the claims a previous
// run left pending.
//
// deliver delivers one claim, already judged at the moment of delivery:
// Decision.Deliver (on time, or Late), or Decision.Missed (report once
// that it was missed; do not run a schedule's turn). It is Run's rather
// than the Loop's, so the tools that wake the loop exist before whatever
// delivers (the chat core).
func (l *Loop) Run(ctx context.Context, deliver func(context.Context, Claim) error) {
	r := l.start(deliver)
	r.retryAt = r.now() // the pending claims of a previous run, at once
	for ctx.Err() == nil {
		claimed := r.cycle(ctx)
		if r.sleepOrWake(ctx, r.wait(ctx, claimed)) != nil {
			return
		}
	}
}

// run is one Run's settings, defaults filled in, and its retry state.
type run struct {
	l        *Loop
	handOver func(context.Context, Claim) error // Run's deliver
	now      func() time.Time
	sleep    func(context.Context, time.Duration) error
	grace    time.Duration
	batch    int
	maxSleep time.Duration
	retry    backoff.Policy
	log      *slog.Logger

	// retryAt is when pending claims are to be delivered again; zero
	// when none are owed.
	retryAt time.Time
	attempt int // consecutive failed cycles, for the backoff
}

func (l *Loop) start(deliver func(context.Context, Claim) error) *run {
	r := &run{l: l, handOver: deliver, grace: cmp.Or(l.Grace, DefaultGrace), batch: cmp.Or(l.Batch, 100),
		maxSleep: cmp.Or(l.MaxSleep, 5*time.Minute), retry: l.Retry, log: l.Logger}
	r.now, r.sleep = clock.Or(l.Now, l.Sleep)
	if r.retry == (backoff.Policy{}) {
		r.retry = backoff.Policy{Base: 5 * time.Second, Cap: 10 * time.Minute, Jitter: backoff.Equal}
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	return r
}

// cycle delivers the pending claims when their retry is due, then claims
// and delivers what is due. It reports whether claiming worked.
func (r *run) cycle(ctx context.Context) (claimed bool) {
	tried, pendingOK := false, true
	if !r.retryAt.IsZero() && !r.now().Before(r.retryAt) {
		tried, pendingOK = true, r.redeliver(ctx)
	}
	// Claimed even when redelivery failed: one claim that cannot be
	// delivered must not hold back everything due after it.
	claimed, delivered := r.claimDue(ctx)
	switch {
	case ctx.Err() != nil:
	case (tried && !pendingOK) || !claimed || !delivered:
		at := r.now().Add(r.retry.Delay(r.attempt))
		r.attempt++
		if r.retryAt.IsZero() || tried || at.Before(r.retryAt) {
			r.retryAt = at
		}
		r.log.Warn("reminders: delivery failed, retrying", "at", r.retryAt, "attempt", r.attempt)
	case tried:
		r.retryAt, r.attempt = time.Time{}, 0
	}
	return claimed
}

// redeliver delivers every pending claim and reports whether all went.
func (r *run) redeliver(ctx context.Context) bool {
	claims, err := r.l.Store.PendingClaims(ctx)
	if err != nil {
		if ctx.Err() == nil {
			r.log.Error("reminders: read pending claims", "err", err)
		}
		return false
	}
	ok := true
	for _, c := range claims {
		if ctx.Err() != nil {
			return false
		}
		ok = r.deliver(ctx, c) && ok
	}
	return ok
}

// claimDue claims and delivers what is due, a batch at a time; claimed is
// false when the store failed, delivered when some delivery did.
func (r *run) claimDue(ctx context.Context) (claimed, delivered bool) {
	delivered = true
	for {
		claims, err := r.l.Store.ClaimDue(ctx, r.now(), r.grace, r.batch)
		if err != nil {
			if ctx.Err() == nil {
				r.log.Error("reminders: claim due items", "err", err)
			}
			return false, delivered
		}
		for _, c := range claims {
			if ctx.Err() != nil {
				return true, false // the rest stay pending for the next run
			}
			delivered = r.deliver(ctx, c) && delivered
		}
		if len(claims) < r.batch {
			return true, delivered
		}
	}
}

// deliver judges c now, delivers it and marks it delivered.
func (r *run) deliver(ctx context.Context, c Claim) bool {
	c = c.Judge(r.now(), r.grace)
	if err := r.handOver(ctx, c); err != nil {
		if ctx.Err() == nil {
			r.log.Warn("reminders: deliver", "key", c.Key(), "err", err)
		}
		return false
	}
	if err := r.l.Store.ClaimDelivered(ctx, c); err != nil {
		// Delivered, not marked: it will be delivered again, which
		// Deliver's idempotence makes harmless.
		if ctx.Err() == nil {
			r.log.Error("reminders: mark delivered", "key", c.Key(), "err", err)
		}
		return false
	}
	r.log.Debug("reminders: delivered", "key", c.Key(), "kind", c.Item.Kind,
		"late", c.Decision.Late, "missed", c.Decision.Missed)
	return true
}

// wait is how long to sleep: until the earliest Next, the retry, or
// MaxSleep, whichever comes first. After a failed claim only the retry
// counts: the items still due would wake the loop at once, again and
// again.
func (r *run) wait(ctx context.Context, claimed bool) time.Duration {
	now := r.now()
	d := r.maxSleep
	if !r.retryAt.IsZero() {
		d = min(d, r.retryAt.Sub(now))
	}
	if !claimed {
		return d
	}
	next, ok, err := r.l.Store.NextItemDue(ctx)
	switch {
	case err != nil:
		if ctx.Err() == nil {
			r.log.Error("reminders: next due", "err", err)
		}
		return min(d, r.retry.Delay(r.attempt))
	case ok:
		d = min(d, next.Sub(now))
	}
	return d
}

// sleepOrWake sleeps d on the loop's clock, cut short by Wake; it returns
// an error only when ctx ended.
func (r *run) sleepOrWake(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	sctx, cancel := context.WithCancel(ctx)
	wake := r.l.wakeC()
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-wake:
			cancel()
		case <-sctx.Done():
		}
	}()
	r.sleep(sctx, d)
	cancel()
	// The watcher is gone before the next cycle reads the store, so a
	// Wake it took came before that read, and one after stays buffered
	// for the next sleep: no wake is lost.
	<-watched
	return ctx.Err()
}
