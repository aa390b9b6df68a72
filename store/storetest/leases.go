package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// leaseTests cover bot.Leases and bot.Replicas: how replicas on one
// database take turns and count each other.
var leaseTests = []test{
	{"HoldRelease", testLeases},
	{"NonPositiveTTL", testLeaseTTL},
	{"HoldRace", testLeaseRace},
	{"TakeoverRace", testLeaseTakeoverRace},
	{"BeatLeave", testReplicas},
	{"SharedState", testSharedState},
}

// leaseTTL is the TTL of every lease the tests hold: a lease held at
// epoch+t runs until epoch+t+leaseTTL.
const leaseTTL = 30 * time.Second

// hold is a step calling HoldLease at epoch+at, which must report ok.
func hold(on int, name, holder string, at time.Duration, ok bool) step {
	return step{on, fmt.Sprintf("HoldLease(%q, %q, +%v)", name, holder, at), func(ctx context.Context, h Store) error {
		got, err := h.HoldLease(ctx, name, holder, epoch.Add(at), leaseTTL)
		if err == nil && got != ok {
			err = fmt.Errorf("ok = %v, want %v", got, ok)
		}
		return err
	}}
}

// release is a step calling ReleaseLease.
func release(on int, name, holder string) step {
	return step{on, fmt.Sprintf("ReleaseLease(%q, %q)", name, holder), func(ctx context.Context, h Store) error {
		return h.ReleaseLease(ctx, name, holder)
	}}
}

func testLeases(t *testing.T, s suite) {
	const ms = time.Millisecond
	runScripts(t, s, []script{
		{"take a free name", []step{
			hold(0, "session:s1", "r1", 0, true),
		}},
		{"the other handle sees it", []step{
			hold(0, "session:s1", "r1", 0, true),
			hold(1, "session:s1", "r2", time.Second, false),
			hold(1, "session:s1", "r1", time.Second, true),
		}},
		{"extend by the same holder", []step{
			hold(0, "session:s1", "r1", 0, true),
			hold(1, "session:s1", "r1", 10*time.Second, true), // now until 40s
			hold(0, "session:s1", "r2", leaseTTL, false),      // the first term's end
			hold(0, "session:s1", "r2", 40*time.Second-ms, false),
			hold(0, "session:s1", "r2", 40*time.Second, true),
		}},
		{"refused to another before expiry", []step{
			hold(0, "session:s1", "r1", 0, true),
			hold(0, "session:s1", "r2", 0, false),
			hold(1, "session:s1", "r2", leaseTTL-ms, false),
			hold(0, "session:s1", "r1", time.Second, true), // a refusal took nothing from r1
		}},
		{"taken over exactly at expiry", []step{
			hold(0, "session:s1", "r1", 0, true),
			hold(1, "session:s1", "r2", leaseTTL, true),
			hold(0, "session:s1", "r1", leaseTTL+ms, false), // r2 holds it now
		}},
		{"taken over after expiry", []step{
			hold(0, "telegram", "r1", 0, true),
			hold(1, "telegram", "r2", time.Hour, true),
			hold(0, "telegram", "r1", time.Hour, false),
		}},
		{"release lets another take at once", []step{
			hold(0, "session:s1", "r1", 0, true),
			release(0, "session:s1", "r1"),
			hold(1, "session:s1", "r2", ms, true),
		}},
		{"release by a non-holder leaves it", []step{
			hold(0, "session:s1", "r1", 0, true),
			release(1, "session:s1", "r2"),
			hold(1, "session:s1", "r2", ms, false),
			hold(0, "session:s1", "r1", ms, true),
		}},
		{"a late release leaves the new holder's", []step{
			hold(0, "session:s1", "r1", 0, true),
			hold(1, "session:s1", "r2", leaseTTL, true),
			release(0, "session:s1", "r1"), // r1 wakes after its lease ran out
			hold(0, "session:s1", "r3", leaseTTL+ms, false),
		}},
		{"release of a free name", []step{
			release(0, "session:s1", "r1"),
			hold(0, "session:s1", "r2", 0, true),
		}},
		{"two leases are independent", []step{
			hold(0, "session:s1", "r1", 0, true),
			hold(1, "session:s2", "r2", 0, true),
			hold(0, "session:s2", "r1", ms, false),
			hold(1, "session:s1", "r2", ms, false),
			release(0, "session:s1", "r1"),
			hold(0, "session:s2", "r1", 2*ms, false), // s2 still r2's
			hold(1, "session:s1", "r2", 2*ms, true),
		}},
	})
}

// testLeaseTTL: a lease that would end as it begins is the caller's bug,
// refused rather than reported as held; it takes nothing.
func testLeaseTTL(t *testing.T, s suite) {
	db := s.fresh(t)
	for _, ttl := range []time.Duration{0, -time.Second} {
		if ok, err := db.HoldLease(t.Context(), "telegram", "r1", epoch, ttl); ok || err == nil {
			t.Errorf("HoldLease with ttl %v = %v, %v; want false and an error", ttl, ok, err)
		}
	}
	if ok, err := db.HoldLease(t.Context(), "telegram", "r2", epoch, leaseTTL); !ok || err != nil {
		t.Errorf("HoldLease after the refused ones = %v, %v; want true, nil", ok, err)
	}
}
