package evolve

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/parleybot/parley/internal/clock"
)

// When the next cycle is due is kept in the store, not in a timer: a bot
// restarted or failed over more often than every 12 h would otherwise
// never reflect. Every replica reads the same due time, and one lease
// lets one of them run the cycle.

// CycleStore keeps the next cycle's due time where every restart and
// every replica sees it, and elects who runs a cycle (store.DB: its KV
// table and its leases, in both engines).
type CycleStore interface {
	Get(ctx context.Context, key string) (string, bool, error)
	Set(ctx context.Context, key, value string) error
	HoldLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (ok bool, err error)
	ReleaseLease(ctx context.Context, name, holder string) error
}

const (
	// DueKey is the KV key of the next cycle's due time (Unix
	// milliseconds).
	DueKey = "evolution:next_cycle"
	// cycleLease is held by the scheduler running a cycle.
	cycleLease = "evolution:cycle"
	// busyWait is how long a scheduler that found another running the
	// cycle, or the store failing, waits before it looks again.
	busyWait = time.Minute
)

// runDue is Run over the stored due time: a cycle at start when one is
// due, then every Every; a fresh store is first due Every from now.
func (s *Scheduler) runDue(ctx context.Context) {
	now, sleep := clock.Or(s.Now, s.Sleep)
	holder := s.Holder
	if holder == "" {
		holder = "scheduler/" + rand.Text() // one per scheduler, never shared
	}
	for ctx.Err() == nil {
		next, err := s.Step(ctx, holder)
		if err != nil {
			s.logger().Error("reflection schedule", "err", err)
			next = now().Add(busyWait)
		}
		if sleep(ctx, max(next.Sub(now()), 0)) != nil {
			return
		}
	}
}

// Step runs a cycle if one is due at the scheduler's now and holder wins
// the cycle's lease, and says when to look again: the next due time, or
// soon when another holder is running the cycle.
func (s *Scheduler) Step(ctx context.Context, holder string) (next time.Time, err error) {
	now, _ := clock.Or(s.Now, s.Sleep)
	c := s.Config.withDefaults()
	due, err := s.due(ctx, now(), c.Every)
	if err != nil || due.After(now()) {
		return due, err
	}
	// Longer than a cycle can take (its budget's deadline), so a holder
	// that died mid-cycle frees it without anyone's help.
	ttl := c.Budget.withDefaults().Time + busyWait
	ok, err := s.Due.HoldLease(ctx, cycleLease, holder, now(), ttl)
	if err != nil {
		return time.Time{}, fmt.Errorf("take the cycle's lease: %w", err)
	}
	if !ok {
		return now().Add(busyWait), nil // another replica runs it
	}
	defer func() {
		if rerr := s.Due.ReleaseLease(context.WithoutCancel(ctx), cycleLease, holder); rerr != nil {
			s.logger().Warn("reflection schedule: release the cycle's lease", "err", rerr)
		}
	}()
	// Read again under the lease: another replica may have run the cycle
	// between the first read and the lease.
	if due, err = s.due(ctx, now(), c.Every); err != nil || due.After(now()) {
		return due, err
	}
	at := now()
	next = at.Add(c.Every)
	// Moved on before the cycle runs: a cycle that crashes the process
	// is not retried at every restart, and the dirty gate brings back
	// whatever it did not reach.
	if err := s.Due.Set(ctx, DueKey, strconv.FormatInt(next.UnixMilli(), 10)); err != nil {
		return time.Time{}, fmt.Errorf("keep the next cycle's time: %w", err)
	}
	s.Cycle(ctx, at, "", false)
	return next, nil
}

// due is the stored due time, at most every from now (a shorter
// evolution.cycle_hours takes effect at once); a store that has none
// yet is first due every from now, and keeps that.
func (s *Scheduler) due(ctx context.Context, now time.Time, every time.Duration) (time.Time, error) {
	v, ok, err := s.Due.Get(ctx, DueKey)
	if err != nil {
		return time.Time{}, fmt.Errorf("read the next cycle's time: %w", err)
	}
	if ms, perr := strconv.ParseInt(v, 10, 64); ok && perr == nil {
		if due := time.UnixMilli(ms); due.Before(now.Add(every)) {
			return due, nil
		}
		return now.Add(every), nil
	}
	due := now.Add(every)
	if err := s.Due.Set(ctx, DueKey, strconv.FormatInt(due.UnixMilli(), 10)); err != nil {
		return time.Time{}, fmt.Errorf("keep the next cycle's time: %w", err)
	}
	return due, nil
}

func (s *Scheduler) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}
