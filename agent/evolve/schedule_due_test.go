package evolve_test

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/store"
)

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

func openStore(t *testing.T, path string) *store.DB {
	t.Helper()
	db, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func dueScheduler(db *store.DB, n *atomic.Int32, now *time.Time) *evolve.Scheduler {
	return &evolve.Scheduler{Store: cycles{ActivityStore: db, n: n}, Reflector: &countingReflector{}, Due: db,
		Config: evolve.ScheduleConfig{Every: 12 * time.Hour}, Now: func() time.Time { return *now }}
}

type countingReflector struct{}

func (countingReflector) Reflect(context.Context, string, *evolve.Allowance) ([]evolve.Change, error) {
	return nil, nil
}

// TestScheduleSurvivesRestarts: the next cycle's time is kept in the
// store; a restart before it waits for it, one after it reflects at once.
func TestScheduleSurvivesRestarts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
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
		db := openStore(t, path) // each step a restart: a new process on the file
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

	// Run itself: started after the due time, it reflects before it
	// first waits.
	db := openStore(t, path)
	now = t0.Add(30 * time.Hour)
	s := dueScheduler(db, &n, &now)
	ctx, cancel := context.WithCancel(t.Context())
	var waited []time.Duration
	s.Sleep = func(_ context.Context, d time.Duration) error {
		waited = append(waited, d)
		cancel()
		return context.Canceled
	}
	s.Run(ctx)
	if n.Load() != 2 || len(waited) != 1 || waited[0] != 12*time.Hour {
		t.Errorf("Run after the due time: %d cycles, waits %v; want 2 and [12h]", n.Load(), waited)
	}
}

// TestOneReplicaRunsTheCycle: two schedulers on one store, each its own
// handle as two replicas are, due at the same moment: one cycle runs.
func TestOneReplicaRunsTheCycle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	now := t0
	a, b := openStore(t, path), openStore(t, path)
	var n atomic.Int32
	sa, sb := dueScheduler(a, &n, &now), dueScheduler(b, &n, &now)
	if _, err := sa.Step(t.Context(), "a"); err != nil { // the due time is set
		t.Fatal(err)
	}
	now = t0.Add(12 * time.Hour)

	t.Run("one runs while the other looks", func(t *testing.T) {
		var during time.Time
		var derr error
		sa.Store = cycles{ActivityStore: a, n: &n, during: func() { during, derr = sb.Step(t.Context(), "b") }}
		next, err := sa.Step(t.Context(), "a")
		if err != nil || derr != nil {
			t.Fatal(err, derr)
		}
		if n.Load() != 1 || !next.Equal(now.Add(12*time.Hour)) {
			t.Errorf("%d cycles, next %v; want 1, %v", n.Load(), next, now.Add(12*time.Hour))
		}
		if !during.Equal(next) {
			t.Errorf("during the cycle the other looks again at %v, want the next cycle's %v", during, next)
		}
		if next, err := sb.Step(t.Context(), "b"); err != nil || n.Load() != 1 || !next.Equal(now.Add(12*time.Hour)) {
			t.Errorf("after the cycle the other sees next %v (%v), %d cycles", next, err, n.Load())
		}
	})

	t.Run("a replica that died mid-cycle holds it for a while", func(t *testing.T) {
		now = now.Add(12 * time.Hour)
		before := n.Load()
		if ok, err := a.HoldLease(t.Context(), "evolution:cycle", "dead", now, time.Hour); !ok || err != nil {
			t.Fatal(ok, err)
		}
		next, err := sb.Step(t.Context(), "b")
		if err != nil || n.Load() != before || !next.Equal(now.Add(time.Minute)) {
			t.Errorf("while the lease is held: next %v (%v), %d cycles; want a minute on, none", next, err, n.Load()-before)
		}
		now = now.Add(time.Hour)
		if _, err := sb.Step(t.Context(), "b"); err != nil || n.Load() != before+1 {
			t.Errorf("once it expired: %v, %d cycles, want 1", err, n.Load()-before)
		}
	})

	t.Run("both at once", func(t *testing.T) {
		sa.Store = cycles{ActivityStore: a, n: &n}
		now = now.Add(12 * time.Hour)
		before := n.Load()
		var wg sync.WaitGroup
		for _, s := range []struct {
			s      *evolve.Scheduler
			holder string
		}{{sa, "a"}, {sb, "b"}} {
			wg.Go(func() {
				if _, err := s.s.Step(context.Background(), s.holder); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if got := n.Load() - before; got != 1 {
			t.Errorf("%d cycles, want 1", got)
		}
	})
}
