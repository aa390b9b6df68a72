package remind_test

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/store"
)

// The process stops between a claim and its ClaimDelivered (the crash:
// Deliver has run, ClaimDelivered finds the context ended). A new Loop
// over the same SQLite file delivers that claim once more, first thing,
// under the same Key, and nothing else again.
func TestLoopRecoversAClaimNeverMarked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "parley.db")
		db, err := store.Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		add := func(text string, in time.Duration) int64 {
			t.Helper()
			id, err := db.AddItem(t.Context(), remind.Item{Kind: remind.KindReminder, Scope: "space:slack:T1",
				Owner: "slack:U1", Place: remind.Place{Platform: "slack", Chat: "C1"}, Text: text,
				Zone: "Europe/Berlin", Next: start.Add(in)}, 0)
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		add("before", time.Hour)
		crashing := add("crashing", 2*time.Hour)
		add("after", 5*time.Hour)

		var mu sync.Mutex
		var got []string // key, text and time of every Deliver
		var keys []string
		record := func(c remind.Claim) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, c.Item.Text+" at "+time.Since(start).String())
			keys = append(keys, c.Key())
		}

		ctx, crash := context.WithCancel(t.Context())
		first := &remind.Loop{Store: db, MaxSleep: 24 * time.Hour}
		stopped := make(chan struct{})
		go func() {
			first.Run(ctx, func(_ context.Context, c remind.Claim) error {
				record(c)
				if c.Item.ID == crashing {
					crash() // sent, and the process dies before marking it
				}
				return nil
			})
			close(stopped)
		}()
		time.Sleep(3 * time.Hour)
		<-stopped
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}

		db, err = store.Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if p, err := db.PendingClaims(t.Context()); err != nil || len(p) != 1 || p[0].Item.ID != crashing {
			t.Fatalf("pending after the crash: %+v, %v; want the crashing one's claim", p, err)
		}
		ctx, stop := context.WithCancel(t.Context())
		defer stop()
		second := &remind.Loop{Store: db, MaxSleep: 24 * time.Hour}
		go second.Run(ctx, func(_ context.Context, c remind.Claim) error {
			record(c)
			return nil
		})
		time.Sleep(3 * time.Hour)
		synctest.Wait()
		stop()

		want := []string{"before at 1h0m0s", "crashing at 2h0m0s", "crashing at 3h0m0s", "after at 5h0m0s"}
		if !slices.Equal(got, want) {
			t.Fatalf("deliveries %v, want %v", got, want)
		}
		if keys[1] != keys[2] {
			t.Errorf("the redelivery's key %q is not the first delivery's %q", keys[2], keys[1])
		}
		if p, _ := db.PendingClaims(t.Context()); len(p) != 0 {
			t.Errorf("pending at the end: %+v", p)
		}
	})
}
