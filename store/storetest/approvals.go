package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/chat"
)

var approvalTests = []test{
	{"CreateRoundTripAndIdempotence", testCreateApprovalRoundTripAndIdempotence},
	{"CreateErrors", testCreateApprovalErrors},
	{"Decide", testDecideApproval},
	{"DecideUnknown", testDecideUnknownApproval},
	{"DecideRace", testDecideApprovalRace},
	{"SetRefs", testSetApprovalRefs},
	{"Listings", testApprovalListings},
	{"Undecided", testUndecidedApprovals},
	{"History", testApprovalHistory},
}

var (
	apAlice = chat.User{Platform: "telegram", ID: "42", Name: "Alice"}
	apAdmin = chat.User{Platform: "telegram", ID: "7", Name: "Root"}
)

// newApprovalRec returns a pending approval of call in approvalSession sid, due ten
// minutes after epoch.
func newApprovalRec(id, sid, call string) approvals.Record {
	return approvals.Record{
		ID: id, SessionID: sid, ToolCallID: call, ToolName: "shell", Summary: "rm -rf /tmp/x",
		Requester: apAlice.Key(), RequesterName: apAlice.Name, Approvers: []string{apAlice.Key(), apAdmin.Key()},
		Status: approvals.StatusPending, ExpiresAt: epoch.Add(10 * time.Minute), CreatedAt: epoch,
	}
}

// approvalSession creates a approvalSession to hang approvals on.
func approvalSession(t *testing.T, db Store, chatID string) string {
	t.Helper()
	sid, err := db.SessionFor(t.Context(), chat.Thread{Platform: "telegram", Chat: chatID})
	if err != nil {
		t.Fatalf("SessionFor: %v", err)
	}
	return sid
}

func mustCreateApproval(t *testing.T, db Store, rec approvals.Record) approvals.Record {
	t.Helper()
	got, created, err := db.CreateApproval(t.Context(), rec)
	if err != nil || !created {
		t.Fatalf("CreateApproval(%s) = created %t, %v", rec.ID, created, err)
	}
	return got
}

func testCreateApprovalRoundTripAndIdempotence(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	ctx := t.Context()
	sid := approvalSession(t, db, "c1")
	want := newApprovalRec("ap1", sid, "call_1")
	got := mustCreateApproval(t, db, want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("created record (-want +got):\n%s", diff)
	}

	// A re-run after a crash asks again for the same tool call, with a new
	// id: it gets the existing approval, unchanged.
	again := newApprovalRec("ap2", sid, "call_1")
	again.Summary = "something else"
	got, created, err := db.CreateApproval(ctx, again)
	if err != nil || created {
		t.Fatalf("second CreateApproval = created %t, %v; want existing", created, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("existing record (-want +got):\n%s", diff)
	}
	if _, ok, err := db.Approval(ctx, "ap2"); ok || err != nil {
		t.Errorf("Approval(ap2) = %t, %v; want no such approval", ok, err)
	}

	// The row survives the process.
	closeNow(t, db)
	db2 := reopen()
	got, ok, err := db2.Approval(ctx, "ap1")
	if err != nil || !ok {
		t.Fatalf("Approval after reopen = %t, %v", ok, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reopened record (-want +got):\n%s", diff)
	}

	// What a private and a mandatory approval are survives as well.
	for i, flags := range []struct{ mandatory, private bool }{{true, false}, {false, true}} {
		rec := newApprovalRec(fmt.Sprintf("ap%d", i+3), sid, fmt.Sprintf("call_%d", i+3))
		rec.Mandatory, rec.Private, rec.Risks = flags.mandatory, flags.private, []string{"sends data out"}
		mustCreateApproval(t, db2, rec)
		got, _, err := db2.Approval(ctx, rec.ID)
		if diff := cmp.Diff(rec, got); err != nil || diff != "" {
			t.Errorf("%s read back (-want +got), %v:\n%s", rec.ID, err, diff)
		}
	}
}

func testCreateApprovalErrors(t *testing.T, s suite) {
	db := s.fresh(t)
	sid := approvalSession(t, db, "c1")
	mustCreateApproval(t, db, newApprovalRec("ap1", sid, "call_1"))
	tests := []struct {
		name     string
		rec      approvals.Record
		notFound bool
	}{
		{"unknown session", newApprovalRec("ap2", "nosuch", "call_1"), true},
		{"no id", newApprovalRec("", sid, "call_2"), false},
		{"no tool call", newApprovalRec("ap3", sid, ""), false},
		{"id taken by another call", newApprovalRec("ap1", sid, "call_9"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := db.CreateApproval(t.Context(), tt.rec)
			if err == nil {
				t.Fatal("CreateApproval succeeded")
			}
			if got := s.notFound(err); got != tt.notFound {
				t.Errorf("not found (%v) = %t, want %t", err, got, tt.notFound)
			}
		})
	}
}

func testDecideApproval(t *testing.T, s suite) {
	deadline := epoch.Add(10 * time.Minute)
	tests := []struct {
		name    string
		status  string
		by      chat.User
		at      time.Time
		won     bool
		wantErr bool
	}{
		{"approve before the deadline", approvals.StatusApproved, apAlice, deadline.Add(-time.Millisecond), true, false},
		{"deny before the deadline", approvals.StatusDenied, apAdmin, epoch, true, false},
		{"approve at the deadline loses", approvals.StatusApproved, apAlice, deadline, false, false},
		{"deny after the deadline loses", approvals.StatusDenied, apAlice, deadline.Add(time.Hour), false, false},
		{"expire after the deadline", approvals.StatusExpired, chat.User{}, deadline, true, false},
		{"expire early (unpostable message)", approvals.StatusExpired, chat.User{}, epoch, true, false},
		{"approve without a decider", approvals.StatusApproved, chat.User{}, epoch, false, true},
		{"back to pending", approvals.StatusPending, apAlice, epoch, false, true},
		{"unknown status", "maybe", apAlice, epoch, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := s.fresh(t)
			ctx := t.Context()
			rec := mustCreateApproval(t, db, newApprovalRec("ap1", approvalSession(t, db, "c1"), "call_1"))
			won, err := db.DecideApproval(ctx, rec.ID, tt.status, tt.by, tt.at)
			if (err != nil) != tt.wantErr || won != tt.won {
				t.Fatalf("DecideApproval = %t, %v; want %t, error %t", won, err, tt.won, tt.wantErr)
			}
			got, _, err := db.Approval(ctx, rec.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := rec
			if tt.won {
				want.Status, want.DecidedAt = tt.status, tt.at
				if tt.by.ID != "" {
					want.DecidedBy, want.DecidedByName = tt.by.Key(), tt.by.Name
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
			// Whatever happened, a decided approval stays decided.
			if tt.won {
				for _, s := range []string{approvals.StatusApproved, approvals.StatusDenied, approvals.StatusExpired} {
					if again, err := db.DecideApproval(ctx, rec.ID, s, apAdmin, epoch); again || err != nil {
						t.Errorf("deciding %s again = %t, %v; want lost", s, again, err)
					}
				}
			}
		})
	}
}

func testDecideUnknownApproval(t *testing.T, s suite) {
	db := s.fresh(t)
	if won, err := db.DecideApproval(t.Context(), "nosuch", approvals.StatusApproved, apAlice, epoch); won || err != nil {
		t.Errorf("DecideApproval(nosuch) = %t, %v; want lost", won, err)
	}
}

// testDecideApprovalRace: double clicks, two approvers and the expiry sweep
// all at once, from two processes' worth of connections: exactly one wins,
// and the row shows that one.
func testDecideApprovalRace(t *testing.T, s suite) {
	db1, reopen := s.open(t, Options{})
	db2 := reopen() // a second handle on the database, as another process would have
	ctx := t.Context()
	for round := range 5 {
		rec := mustCreateApproval(t, db1, newApprovalRec(fmt.Sprintf("ap%d", round), approvalSession(t, db1, fmt.Sprint("c", round)), "call_1"))
		const n = 40
		type result struct {
			status string
			by     chat.User
			won    bool
			err    error
		}
		results := make([]result, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			r := &results[i]
			switch i % 3 {
			case 0:
				r.status, r.by = approvals.StatusApproved, apAlice
			case 1:
				r.status, r.by = approvals.StatusDenied, apAdmin
			default:
				r.status = approvals.StatusExpired
			}
			db := db1
			if i%2 == 1 {
				db = db2
			}
			wg.Go(func() {
				<-start
				r.won, r.err = db.DecideApproval(ctx, rec.ID, r.status, r.by, epoch.Add(time.Minute))
			})
		}
		close(start)
		wg.Wait()
		var winners []result
		for _, r := range results {
			if r.err != nil {
				t.Fatalf("DecideApproval: %v", r.err)
			}
			if r.won {
				winners = append(winners, r)
			}
		}
		if len(winners) != 1 {
			t.Fatalf("round %d: %d winners, want exactly 1: %+v", round, len(winners), winners)
		}
		got, _, err := db1.Approval(ctx, rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != winners[0].status || got.DecidedBy != approvalKeyOf(winners[0].by) {
			t.Errorf("round %d: row is %s by %q, winner was %s by %q", round, got.Status, got.DecidedBy, winners[0].status, approvalKeyOf(winners[0].by))
		}
	}
}

func approvalKeyOf(u chat.User) string {
	if u.ID == "" {
		return ""
	}
	return u.Key()
}

func testSetApprovalRefs(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	rec := mustCreateApproval(t, db, newApprovalRec("ap1", approvalSession(t, db, "c1"), "call_1"))
	refs := []chat.MessageRef{{Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1.5"}, ID: "1.7"}}
	if err := db.SetApprovalRefs(ctx, rec.ID, refs); err != nil {
		t.Fatal(err)
	}
	got, _, err := db.Approval(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(refs, got.Refs); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	if err := db.SetApprovalRefs(ctx, "nosuch", refs); !s.notFound(err) {
		t.Errorf("SetApprovalRefs(nosuch) = %v, want not found", err)
	}
}

func testApprovalListings(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	s1, s2 := approvalSession(t, db, "c1"), approvalSession(t, db, "c2")
	due := func(id, sid, call string, minutes int) approvals.Record {
		r := newApprovalRec(id, sid, call)
		r.ExpiresAt = epoch.Add(time.Duration(minutes) * time.Minute)
		r.CreatedAt = epoch.Add(time.Duration(len(id)) * time.Second)
		return mustCreateApproval(t, db, r)
	}
	late := due("late", s1, "call_1", 30)
	soon := due("soon", s1, "call_2", 5)
	sooner := due("sooner", s2, "call_1", 2)
	decided := due("decided", s1, "call_3", 1)
	if won, err := db.DecideApproval(ctx, decided.ID, approvals.StatusDenied, apAdmin, epoch.Add(30*time.Second)); !won || err != nil {
		t.Fatalf("DecideApproval = %t, %v", won, err)
	}

	ids := func(recs []approvals.Record, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, r := range recs {
			out = append(out, r.ID)
		}
		return out
	}
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"expired at 0", ids(db.ExpiredApprovals(ctx, epoch)), []string{}},
		{"expired at 5 min", ids(db.ExpiredApprovals(ctx, epoch.Add(5*time.Minute))), []string{sooner.ID, soon.ID}},
		{"expired at 1 h", ids(db.ExpiredApprovals(ctx, epoch.Add(time.Hour))), []string{sooner.ID, soon.ID, late.ID}},
		{"session 1", ids(db.SessionApprovals(ctx, s1)), []string{late.ID, soon.ID, decided.ID}},
		{"session 2", ids(db.SessionApprovals(ctx, s2)), []string{sooner.ID}},
		{"decided since epoch", ids(db.DecidedApprovals(ctx, epoch)), []string{decided.ID}},
		{"decided since later", ids(db.DecidedApprovals(ctx, epoch.Add(time.Minute))), []string{}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
