package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// raceLease has 16 holders on two handles (two processes) call HoldLease
// for name at the same now, released together, and returns who won.
// Exactly one may: two would run one session's turns twice.
func raceLease(t *testing.T, dbs []Store, name string, now time.Time) []string {
	t.Helper()
	const holders = 16
	won := make([]bool, holders)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range holders {
		wg.Go(func() {
			<-start
			ok, err := dbs[i%len(dbs)].HoldLease(t.Context(), name, holderName(i), now, leaseTTL)
			if err != nil {
				t.Errorf("HoldLease by %s: %v", holderName(i), err)
			}
			won[i] = ok
		})
	}
	close(start)
	wg.Wait()
	var winners []string
	for i, ok := range won {
		if ok {
			winners = append(winners, holderName(i))
		}
	}
	if len(winners) != 1 {
		t.Fatalf("HoldLease(%q) at %v won by %v; want exactly one holder", name, now, winners)
	}
	return winners
}

func holderName(i int) string { return fmt.Sprintf("r%d", i) }

// testLeaseRace: a free name, raced for; the winner then holds it.
func testLeaseRace(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	dbs := []Store{db, reopen()}
	for round := range 3 {
		name := fmt.Sprintf("session:s%d", round)
		winner := raceLease(t, dbs, name, epoch)[0]
		for i, h := range dbs {
			if ok, err := h.HoldLease(t.Context(), name, winner, epoch.Add(time.Second), leaseTTL); !ok || err != nil {
				t.Errorf("handle %d: the winner %s extending = %v, %v; want true, nil", i, winner, ok, err)
			}
		}
	}
}

// testLeaseTakeoverRace: a lease raced for at the instant it expires, its
// holder among the racers (it may extend, or one other may take over).
func testLeaseTakeoverRace(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	dbs := []Store{db, reopen()}
	if ok, err := db.HoldLease(t.Context(), "telegram", holderName(0), epoch, leaseTTL); !ok || err != nil {
		t.Fatalf("HoldLease = %v, %v; want true, nil", ok, err)
	}
	at := epoch
	for range 3 {
		at = at.Add(leaseTTL)
		raceLease(t, dbs, "telegram", at)
	}
}
