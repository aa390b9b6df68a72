package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/remind"
)

// testClaimDueConcurrent: two handles on one database (two processes)
// claim due items at once, a few at a time; each due occurrence is claimed
// exactly once across both, none that is not due is claimed, and a claim
// afterwards finds nothing.
func testClaimDueConcurrent(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	dbs := []Store{db, reopen()}
	ctx := t.Context()
	now := rt0.Add(10 * time.Minute)
	due := map[int64]bool{}
	for i := range 24 {
		it := reminder(fmt.Sprintf("space:slack:T%d", i%3), "slack:U1", rt0.Add(-time.Duration(i)*time.Minute))
		if i%4 == 0 {
			it = daily(it.Scope, "slack:U1")
		}
		due[addItem(t, db, it).ID] = true
	}
	notYet := addItem(t, db, reminder("space:slack:T0", "slack:U1", now.Add(time.Minute)))

	const callers = 8
	claims := make([][]remind.Claim, callers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			<-start
			for {
				got, err := dbs[c%2].ClaimDue(ctx, now, time.Hour, 3)
				if err != nil {
					t.Errorf("ClaimDue: %v", err)
					return
				}
				if len(got) == 0 {
					return
				}
				claims[c] = append(claims[c], got...)
			}
		})
	}
	close(start)
	wg.Wait()

	seen := map[int64]int{}
	for _, cs := range claims {
		for _, c := range cs {
			seen[c.Item.ID]++
		}
	}
	for id := range due {
		if seen[id] != 1 {
			t.Errorf("item %d claimed %d times, want once", id, seen[id])
		}
	}
	if seen[notYet.ID] != 0 || len(seen) != len(due) {
		t.Errorf("claimed %d items (%d times the one not due); want the %d due", len(seen), seen[notYet.ID], len(due))
	}
	pending, err := dbs[1].PendingClaims(ctx)
	if err != nil || len(pending) != len(due) {
		t.Errorf("PendingClaims = %d claims, %v; want %d", len(pending), err, len(due))
	}
	if again, err := dbs[0].ClaimDue(ctx, now, time.Hour, 100); err != nil || len(again) != 0 {
		t.Errorf("ClaimDue after all were claimed = %+v, %v; want none", again, err)
	}
}
