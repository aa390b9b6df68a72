package postgres_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store/postgres"
	"github.com/parleybot/parley/store/postgres/pgtest"
)

// Concurrency across processes beyond the conformance suite's: more
// handles, more callers, and claims over several ticks of the clock, where
// SKIP LOCKED and the re-check of advanced items both come into play.

// handles opens n DBs on one fresh database: n processes.
func handles(t *testing.T, n int) []*postgres.DB {
	t.Helper()
	url := pgtest.NewDatabase(t)
	dbs := make([]*postgres.DB, n)
	for i := range dbs {
		dbs[i] = openDB(t, url, postgres.WithClock(tickingClock()))
	}
	return dbs
}

var t0 = time.Date(2026, 10, 20, 7, 0, 0, 0, time.UTC)

func everyMinute(i int) remind.Item {
	return remind.Item{Kind: remind.KindSchedule, Scope: fmt.Sprintf("space:slack:T%d", i%3), Owner: "slack:U1",
		Place: remind.Place{Platform: "slack", Space: "T1", Chat: "C1"},
		Text:  fmt.Sprintf("job %d", i), Spec: "* * * * *", Zone: "UTC", Next: t0}
}

func TestClaimDueAcrossProcessesOverTime(t *testing.T) {
	t.Parallel()
	dbs := handles(t, 3)
	ctx := t.Context()
	const items, ticks, callers = 30, 4, 12
	for i := range items {
		if _, err := dbs[0].AddItem(ctx, everyMinute(i), 0); err != nil {
			t.Fatal(err)
		}
	}
	type key struct {
		item int64
		occ  time.Time
	}
	seen := map[key]int{}
	var mu sync.Mutex
	for tick := range ticks {
		now := t0.Add(time.Duration(tick)*time.Minute + 30*time.Second)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for c := range callers {
			wg.Go(func() {
				<-start
				for {
					got, err := dbs[c%len(dbs)].ClaimDue(ctx, now, time.Hour, 4)
					if err != nil {
						t.Errorf("ClaimDue: %v", err)
						return
					}
					if len(got) == 0 {
						return
					}
					mu.Lock()
					for _, cl := range got {
						seen[key{cl.Item.ID, cl.Occurrence}]++
					}
					mu.Unlock()
				}
			})
		}
		close(start)
		wg.Wait()
	}
	if len(seen) != items*ticks {
		t.Errorf("%d occurrences claimed, want %d (%d items × %d ticks)", len(seen), items*ticks, items, ticks)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("item %d at %s claimed %d times", k.item, k.occ.Format(time.TimeOnly), n)
		}
		if k.occ.Sub(t0)%time.Minute != 0 || k.occ.Before(t0) || !k.occ.Before(t0.Add(ticks*time.Minute)) {
			t.Errorf("item %d claimed at %s, not an occurrence of the ticks", k.item, k.occ)
		}
	}
}

// SavePlan returns the plan it replaced: callers racing to create a task
// from two processes see one chain of plans, each replaced exactly once.
func TestSavePlanReplacesInTurn(t *testing.T) {
	t.Parallel()
	dbs := handles(t, 2)
	ctx := t.Context()
	sid, err := dbs[0].SessionFor(ctx, chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 12
	olds := make([]task.Plan, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			p := task.Plan{Items: []task.Item{{Text: fmt.Sprint("plan ", i), Status: task.Pending}}}
			old, err := dbs[i%2].SavePlan(ctx, sid, "slack:U1", p, []task.Entry{{At: t0, Kind: "plan", Text: "saved"}})
			if err != nil {
				t.Errorf("SavePlan: %v", err)
			}
			olds[i] = old
		})
	}
	wg.Wait()
	replaced := map[string]int{}
	for _, old := range olds {
		text := ""
		if len(old.Items) > 0 {
			text = old.Items[0].Text
		}
		replaced[text]++
	}
	final, ok, err := dbs[1].Task(ctx, sid)
	if err != nil || !ok {
		t.Fatalf("Task = %v, %v", ok, err)
	}
	if replaced[""] != 1 || replaced[final.Plan.Items[0].Text] != 0 || len(replaced) != n {
		t.Fatalf("replaced plans %v (final %q): want the empty one once and every other but the final once", replaced, final.Plan.Items[0].Text)
	}
	if log, err := dbs[0].Log(ctx, sid, 100); err != nil || len(log) != n {
		t.Fatalf("work log: %d lines, %v; want %d", len(log), err, n)
	}
}
