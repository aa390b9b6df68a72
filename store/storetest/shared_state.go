package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/bot"
)

// testSharedState: who shares the store as the console's overview reads
// it — the replicas seen since a time, the leases unexpired now, by name.
func testSharedState(t *testing.T, s suite) {
	ctx := t.Context()
	db, _ := s.open(t, Options{})
	for _, b := range []struct {
		id string
		at time.Duration
	}{{"r2", 0}, {"r1", 10 * time.Second}, {"r3", 20 * time.Second}} {
		if _, err := db.Beat(ctx, b.id, epoch.Add(b.at), epoch); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.LiveReplicas(ctx, epoch.Add(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	want := []bot.Replica{{ID: "r1", SeenAt: epoch.Add(10 * time.Second)}, {ID: "r3", SeenAt: epoch.Add(20 * time.Second)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LiveReplicas (-want +got):\n%s", diff)
	}
	for _, h := range []struct {
		name, holder string
		at           time.Duration
	}{{"session:b", "r1", 0}, {"background:kb", "r3", 0}, {"session:old", "r2", -time.Hour}} {
		if ok, err := db.HoldLease(ctx, h.name, h.holder, epoch.Add(h.at), leaseTTL); err != nil || !ok {
			t.Fatalf("HoldLease %s: %v %v", h.name, ok, err)
		}
	}
	leases, err := db.HeldLeases(ctx, epoch.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	wantLeases := []bot.Lease{{Name: "background:kb", Holder: "r3", Expires: epoch.Add(leaseTTL)}, {Name: "session:b", Holder: "r1", Expires: epoch.Add(leaseTTL)}}
	if diff := cmp.Diff(wantLeases, leases); diff != "" {
		t.Errorf("HeldLeases (-want +got):\n%s", diff)
	}
	// At a lease's end it is no longer held.
	if leases, err := db.HeldLeases(ctx, epoch.Add(leaseTTL)); err != nil || len(leases) != 0 {
		t.Errorf("HeldLeases at the end: %+v %v", leases, err)
	}
}
