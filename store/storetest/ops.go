package storetest

import (
	"testing"
	"time"

	"github.com/parleybot/parley/bot/approvals"
)

var opsTests = []test{
	{"Counts", testOperatorCounts},
}

// testOperatorCounts: what /metrics and /readyz read — pending approvals,
// reminders due and not shown (unclaimed or claimed but undelivered), and
// a ping that fails once the database is closed.
func testOperatorCounts(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	if err := db.Ping(ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	count := func() (approvals, reminders int) {
		t.Helper()
		a, err := db.PendingApprovals(ctx)
		if err != nil {
			t.Fatal(err)
		}
		r, err := db.DueReminders(ctx, rt0)
		if err != nil {
			t.Fatal(err)
		}
		return a, r
	}
	if a, r := count(); a != 0 || r != 0 {
		t.Fatalf("empty database: %d approvals, %d reminders", a, r)
	}

	sid := approvalSession(t, db, "c1")
	mustCreateApproval(t, db, newApprovalRec("ap1", sid, "call_1"))
	mustCreateApproval(t, db, newApprovalRec("ap2", sid, "call_2"))
	if _, err := db.DecideApproval(ctx, "ap2", approvals.StatusApproved, apAlice, epoch); err != nil {
		t.Fatal(err)
	}
	addItem(t, db, reminder("person:telegram:1", "telegram:1", rt0.Add(-time.Minute)))   // due
	addItem(t, db, reminder("person:telegram:1", "telegram:1", rt0.Add(-2*time.Minute))) // due, then claimed
	addItem(t, db, reminder("person:telegram:1", "telegram:1", rt0.Add(time.Hour)))      // not yet
	if a, r := count(); a != 1 || r != 2 {
		t.Fatalf("counts %d approvals, %d reminders; want 1, 2", a, r)
	}
	// Claiming moves one from due to undelivered: still not shown.
	claims, err := db.ClaimDue(ctx, rt0, time.Hour, 1)
	if err != nil || len(claims) != 1 {
		t.Fatalf("ClaimDue = %v, %v", claims, err)
	}
	if _, r := count(); r != 2 {
		t.Fatalf("%d reminders after a claim, want 2", r)
	}
	if err := db.ClaimDelivered(ctx, claims[0]); err != nil {
		t.Fatal(err)
	}
	if _, r := count(); r != 1 {
		t.Fatalf("%d reminders after delivering one, want 1", r)
	}

	closeNow(t, db)
	if err := db.Ping(ctx); err == nil {
		t.Fatal("Ping answered after Close")
	}
}
