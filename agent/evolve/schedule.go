package evolve

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/internal/clock"
)

// Reflection runs in the background, never in a conversation: a cycle
// every Every; in each, the scopes worth it — a run scored at or over the
// threshold since their last reflection, or activity and no reflection for
// ForceAfter — outside their cooldown, at most MaxScopes, the most urgent
// first. A scope with nothing new since its last reflection is skipped
// without a model call (the dirty gate). Last reflection times are stored,
// so a restart neither repeats nor forgets them.

// ScheduleConfig tunes the scheduler (evolution.* keys).
type ScheduleConfig struct {
	Every      time.Duration // between cycles (default 12 h)
	Cooldown   time.Duration // per scope, after a reflection (default 4 h)
	ForceAfter time.Duration // reflect an active scope at least this often (default 7 days)
	MaxScopes  int           // per cycle (default 5)
	Weights    Weights       // scoring and threshold (default DefaultWeights)
	Budget     Budget        // per cycle: model calls, tokens, wall time
}

func (c ScheduleConfig) withDefaults() ScheduleConfig {
	c.Every = cmp.Or(c.Every, 12*time.Hour)
	c.Cooldown = cmp.Or(c.Cooldown, 4*time.Hour)
	c.ForceAfter = cmp.Or(c.ForceAfter, 7*24*time.Hour)
	c.MaxScopes = cmp.Or(c.MaxScopes, 5)
	if c.Weights == (Weights{}) {
		c.Weights = DefaultWeights()
	}
	return c
}

// Activity is what a scope did since it last reflected.
type Activity struct {
	Scope string
	// LastReflected is when it last reflected; zero: never.
	LastReflected time.Time
	// LastActivity is its newest run or message; zero: none ever.
	LastActivity time.Time
	// Since is its oldest run or message since LastReflected.
	Since time.Time
	// Best is the highest score of its runs since LastReflected.
	Best float64
}

// plan picks the scopes to reflect on now, most urgent first; force takes
// every scope with anything new, whatever its cooldown and score, and no
// cap.
func plan(acts []Activity, now time.Time, c ScheduleConfig, force bool) []string {
	type pick struct {
		scope  string
		forced bool
		score  float64
	}
	var picks []pick
	for _, a := range acts {
		dirty := a.LastActivity.After(a.LastReflected)
		if !dirty {
			continue // nothing new: no model call
		}
		if force {
			picks = append(picks, pick{a.Scope, false, a.Best})
			continue
		}
		if !a.LastReflected.IsZero() && now.Sub(a.LastReflected) < c.Cooldown {
			continue
		}
		warranted := c.Weights.Warranted(a.Best)
		// Forced: something new has waited a week or more for a
		// reflection (counted from the last one, or from the oldest
		// activity of a scope that never reflected).
		waiting := a.LastReflected
		if waiting.IsZero() {
			waiting = a.Since
		}
		forced := !waiting.IsZero() && now.Sub(waiting) >= c.ForceAfter
		if warranted || forced {
			picks = append(picks, pick{a.Scope, forced && !warranted, a.Best})
		}
	}
	slices.SortStableFunc(picks, func(a, b pick) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.scope, b.scope))
	})
	n := c.MaxScopes
	if force {
		n = len(picks)
	}
	var out []string
	for _, p := range picks[:min(len(picks), n)] {
		out = append(out, p.scope)
	}
	return out
}

// ActivityStore is what the scheduler reads and records (store.DB).
type ActivityStore interface {
	// Activity lists every scope with runs, scored with weights since its
	// last reflection.
	Activity(ctx context.Context, w Weights) ([]Activity, error)
	// MarkReflected records that scope reflected at t.
	MarkReflected(ctx context.Context, scope string, t time.Time) error
}

// Reflector reflects on one scope, spending from a cycle's allowance, and
// says what it changed; cut short by the allowance, it says ErrBudget.
type Reflector interface {
	Reflect(ctx context.Context, scope string, a *Allowance) ([]Change, error)
}

// Reflected is what a cycle did in one scope, and what it cost.
type Reflected struct {
	Scope   string
	Changes []Change
	Err     error
	// Calls and Tokens are the model calls and tokens it spent.
	Calls, Tokens int
	// Nanos is what its priced model calls cost (billionths of a dollar),
	// Unpriced how many had no known price.
	Nanos    int64
	Unpriced int
}

// Scheduler runs reflection cycles until its context ends.
type Scheduler struct {
	Store     ActivityStore
	Reflector Reflector
	Config    ScheduleConfig
	Now       func() time.Time
	Sleep     func(context.Context, time.Duration) error
	Logger    *slog.Logger
	// Log keeps a record of each reflection; nil: none kept.
	Log ReflectionLog
	// Spent is told each model call a reflection makes, for scope (the
	// costs table, so /usage counts reflection); nil: only summed.
	Spent func(ctx context.Context, scope string, c llm.CallCost)
	// Done is told each reflection once it is over (the audit log of its
	// changes); nil: nothing.
	Done func(ctx context.Context, r Reflected)
	// Due keeps the next cycle's due time and elects the one scheduler
	// that runs a cycle (schedule_due.go); nil: the time is this
	// process's alone, and the first cycle comes Every after start.
	Due CycleStore
	// Holder names this scheduler in the cycle's lease; "" a random name.
	Holder string
}

// Run runs a cycle every Config.Every. With Due, a cycle already due
// runs at start and the due time survives restarts; without, the first
// comes Every after start.
func (s *Scheduler) Run(ctx context.Context) {
	if s.Due != nil {
		s.runDue(ctx)
		return
	}
	now, sleep := clock.Or(s.Now, s.Sleep)
	c := s.Config.withDefaults()
	for {
		if sleep(ctx, c.Every) != nil {
			return
		}
		s.Cycle(ctx, now(), "", false)
	}
}

// Cycle reflects on the scopes Plan picks at now — every scope with
// anything new when force is set; only scope only, if not "" — and says
// what it did in each.
func (s *Scheduler) Cycle(ctx context.Context, now time.Time, only string, force bool) []Reflected {
	c := s.Config.withDefaults()
	log := s.logger()
	acts, err := s.Store.Activity(ctx, c.Weights)
	if err != nil {
		log.Error("reflection: read activity", "err", err)
		return nil
	}
	if only != "" {
		acts = slices.DeleteFunc(acts, func(a Activity) bool { return a.Scope != only })
	}
	clockNow, _ := clock.Or(s.Now, s.Sleep)
	allow := NewAllowance(c.Budget, now)
	ctx, cancel := context.WithTimeout(ctx, c.Budget.withDefaults().Time)
	defer cancel()
	var done []Reflected
	for _, scope := range plan(acts, now, c, force) {
		if ctx.Err() != nil {
			break
		}
		if !allow.Left(clockNow()) {
			log.Warn("reflection: the cycle's budget is spent; the other scopes wait for the next cycle",
				"calls", allow.Calls, "tokens", allow.Tokens)
			break
		}
		calls, tokens := allow.Calls, allow.Tokens
		var p priced
		changes, err := s.Reflector.Reflect(p.trace(ctx, s.spentIn(scope)), scope, allow)
		r := Reflected{Scope: scope, Changes: changes, Err: err, Calls: allow.Calls - calls, Tokens: allow.Tokens - tokens}
		r.Nanos, r.Unpriced = p.sum()
		done = append(done, r)
		s.keep(ctx, r, clockNow(), log)
		if errors.Is(err, ErrBudget) {
			// Cut short: what it saved stands, and it reflected.
			log.Warn("reflection cut short by the cycle's budget", "scope", scope, "changes", len(changes))
		} else if err != nil {
			log.Error("reflection failed", "scope", scope, "err", err)
			continue // tried again next cycle: nothing was marked
		}
		log.Info("reflected", "scope", scope, "changes", len(changes), "calls", allow.Calls-calls, "tokens", allow.Tokens-tokens)
		if err := s.Store.MarkReflected(ctx, scope, now); err != nil {
			log.Error("reflection: record", "scope", scope, "err", err)
		}
	}
	return done
}

// spentIn is Spent for scope's calls; nil without Spent.
func (s *Scheduler) spentIn(scope string) func(context.Context, llm.CallCost) {
	if s.Spent == nil {
		return nil
	}
	return func(ctx context.Context, c llm.CallCost) { s.Spent(ctx, scope, c) }
}

// keep records r, failed or not, and tells Done: a cycle past its
// deadline has still done what it did, so neither takes ctx's end.
func (s *Scheduler) keep(ctx context.Context, r Reflected, at time.Time, log *slog.Logger) {
	ctx = context.WithoutCancel(ctx)
	if s.Log != nil {
		if err := s.Log.RecordReflection(ctx, r.record(at)); err != nil {
			log.Error("reflection: keep its record", "scope", r.Scope, "err", err)
		}
	}
	if s.Done != nil {
		s.Done(ctx, r)
	}
}
