package telegram

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/store"
)

// TestSweepChainsForgetsOldEntries: reply-chain entries older than
// chainTTL are removed from a real store at start; newer ones and other
// keys stay.
func TestSweepChainsForgetsOldEntries(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := now.Add(-chainTTL - time.Hour)
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"), store.WithClock(func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return clock
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	a := offlineAdapter(t, db)
	ctx := t.Context()
	if err := a.joinChain(ctx, -100, 1, 1); err != nil { // written 90 days and an hour ago
		t.Fatal(err)
	}
	mu.Lock()
	clock = now.Add(-time.Hour)
	mu.Unlock()
	if err := a.joinChain(ctx, -100, 2, 1); err != nil {
		t.Fatal(err)
	}
	if err := db.Set(ctx, "telegram:1000:offset", "5"); err != nil {
		t.Fatal(err)
	}

	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); a.sweepChains(sctx, func() time.Time { return now }) }()
	deadline := time.Now().Add(15 * time.Second) // a hang, not a timing assertion
	for {
		if _, ok, err := a.chainOf(ctx, -100, 1); err == nil && !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the old chain entry was never forgotten")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	if root, ok, err := a.chainOf(ctx, -100, 2); err != nil || !ok || root != 1 {
		t.Fatalf("the recent chain entry: %d, %v, %v; want it kept", root, ok, err)
	}
	if _, ok, _ := db.Get(ctx, "telegram:1000:offset"); !ok {
		t.Fatal("the sweep removed the poll offset")
	}
}
