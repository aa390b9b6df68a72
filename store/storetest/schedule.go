package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/evolve"
)

// The reflection schedule kept in the store (evolve.Scheduler.Due): its
// due time in the KV table, its cycle under a lease.

// cycles counts the cycles a scheduler runs: each reads the activity
// once. during, when set, runs inside the cycle, as if it took a while.
type cycles struct {
	evolve.ActivityStore
	n      *atomic.Int32
	during func()
}

func (c cycles) Activity(ctx context.Context, w evolve.Weights) ([]evolve.Activity, error) {
	c.n.Add(1)
	if c.during != nil {
		c.during()
	}
	return c.ActivityStore.Activity(ctx, w)
}

type noReflection struct{}

func (noReflection) Reflect(context.Context, string, *evolve.Allowance) ([]evolve.Change, error) {
	return nil, nil
}

func dueScheduler(db Store, n *atomic.Int32, now *time.Time) *evolve.Scheduler {
	return &evolve.Scheduler{Store: cycles{ActivityStore: db, n: n}, Reflector: noReflection{}, Due: db,
		Config: evolve.ScheduleConfig{Every: 12 * time.Hour}, Now: func() time.Time { return *now }}
}

// testScheduleSurvivesRestarts: the next cycle's time is kept in the
// store; a restart before it waits for it, one after it reflects at once,
// and Run itself reflects before it first waits.
func testScheduleSurvivesRestarts(t *testing.T, s suite) {
	_, reopen := s.open(t, Options{})
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	now := t0
	var n atomic.Int32
	steps := []struct {
		name      string
		at        time.Time
		wantNext  time.Time
		wantCycle int32
	}{
		{"a fresh store is first due a cycle from now", t0, t0.Add(12 * time.Hour), 0},
		{"a restart before it keeps the time", t0.Add(6 * time.Hour), t0.Add(12 * time.Hour), 0},
		{"a restart after it reflects at once", t0.Add(13 * time.Hour), t0.Add(25 * time.Hour), 1},
		{"and keeps the next", t0.Add(14 * time.Hour), t0.Add(25 * time.Hour), 1},
	}
	for _, st := range steps {
		db := reopen() // each step a restart: a new process on the database
		now = st.at
		next, err := dueScheduler(db, &n, &now).Step(t.Context(), "replica-1")
		if err != nil {
			t.Fatal(err)
		}
		if !next.Equal(st.wantNext) || n.Load() != st.wantCycle {
			t.Errorf("%s: next %v, %d cycles; want %v, %d", st.name, next, n.Load(), st.wantNext, st.wantCycle)
		}
		db.Close()
	}

	now = t0.Add(30 * time.Hour)
	sch := dueScheduler(reopen(), &n, &now)
	ctx, cancel := context.WithCancel(t.Context())
	var waited []time.Duration
	sch.Sleep = func(_ context.Context, d time.Duration) error {
		waited = append(waited, d)
		cancel()
		return context.Canceled
	}
	sch.Run(ctx)
	if n.Load() != 2 || len(waited) != 1 || waited[0] != 12*time.Hour {
		t.Errorf("Run after the due time: %d cycles, waits %v; want 2 and [12h]", n.Load(), waited)
	}
}

// testOneReplicaRunsTheCycle: two schedulers on one database, each on its
// own handle as two replicas are, due at the same moment: one cycle runs.
func testOneReplicaRunsTheCycle(t *testing.T, s suite) {
	a, reopen := s.open(t, Options{})
	b := reopen()
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	now := t0
	var n atomic.Int32
	sa, sb := dueScheduler(a, &n, &now), dueScheduler(b, &n, &now)
	if _, err := sa.Step(t.Context(), "a"); err != nil { // the due time is set
		t.Fatal(err)
	}
	now = t0.Add(12 * time.Hour)

	// One runs while the other looks: the other finds the next time.
	var during time.Time
	var derr error
	sa.Store = cycles{ActivityStore: a, n: &n, during: func() { during, derr = sb.Step(t.Context(), "b") }}
	next, err := sa.Step(t.Context(), "a")
	if err != nil || derr != nil {
		t.Fatal(err, derr)
	}
	if n.Load() != 1 || !next.Equal(now.Add(12*time.Hour)) || !during.Equal(next) {
		t.Errorf("%d cycles, next %v, the other's next %v; want 1, %v, the same", n.Load(), next, during, now.Add(12*time.Hour))
	}
	sa.Store = cycles{ActivityStore: a, n: &n}

	// A replica that died mid-cycle holds it until its lease expires.
	now = now.Add(12 * time.Hour)
	if ok, err := a.HoldLease(t.Context(), "evolution:cycle", "dead", now, time.Hour); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if next, err := sb.Step(t.Context(), "b"); err != nil || n.Load() != 1 || !next.Equal(now.Add(time.Minute)) {
		t.Errorf("while the lease is held: next %v (%v), %d cycles; want a minute on, 1", next, err, n.Load())
	}
	now = now.Add(time.Hour)
	if _, err := sb.Step(t.Context(), "b"); err != nil || n.Load() != 2 {
		t.Errorf("once it expired: %v, %d cycles, want 2", err, n.Load())
	}

	// Both at once.
	now = now.Add(12 * time.Hour)
	var wg sync.WaitGroup
	for _, r := range []struct {
		s      *evolve.Scheduler
		holder string
	}{{sa, "a"}, {sb, "b"}} {
		wg.Go(func() {
			if _, err := r.s.Step(context.Background(), r.holder); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n.Load() != 3 {
		t.Errorf("both at once: %d cycles in all, want 3", n.Load())
	}
}
