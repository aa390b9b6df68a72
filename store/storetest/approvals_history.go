package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/chat"
)

// testUndecidedApprovals: every session's pending approvals, oldest
// first, whatever their deadline; decided ones are not among them.
func testUndecidedApprovals(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	if got, err := db.UndecidedApprovals(ctx); err != nil || len(got) != 0 {
		t.Fatalf("UndecidedApprovals of none = %v, %v", got, err)
	}
	s1, s2 := approvalSession(t, db, "c1"), approvalSession(t, db, "c2")
	at := func(id, sid, call string, created time.Duration) approvals.Record {
		r := newApprovalRec(id, sid, call)
		r.CreatedAt = epoch.Add(created)
		return mustCreateApproval(t, db, r)
	}
	second := at("b", s2, "call_1", 2*time.Second)
	first := at("z", s1, "call_1", time.Second)
	tie := at("c", s1, "call_2", 2*time.Second) // same time as second: by id
	decided := at("a", s2, "call_2", 0)
	if won, err := db.DecideApproval(ctx, decided.ID, approvals.StatusApproved, apAdmin, epoch.Add(time.Minute)); !won || err != nil {
		t.Fatalf("DecideApproval = %t, %v", won, err)
	}
	got, err := db.UndecidedApprovals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]approvals.Record{first, second, tie}, got); diff != "" {
		t.Errorf("UndecidedApprovals (-want +got):\n%s", diff)
	}
}

// testApprovalHistory: decided and expired approvals, newest decision
// first, through each filter and the limit; a filter or limit out of
// range is an error on every engine.
func testApprovalHistory(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	sid := approvalSession(t, db, "c1")
	bob := chat.User{Platform: "slack", ID: "U2", Name: "Bob"}
	// One approval per row: its tool, requester, decision and decider, and
	// when, in minutes after epoch.
	rows := []struct {
		id, tool  string
		requester chat.User
		status    string
		by        chat.User
		minute    int
	}{
		{"h1", "shell", apAlice, approvals.StatusApproved, apAdmin, 1},
		{"h2", "web_fetch", bob, approvals.StatusDenied, bob, 2},
		{"h3", "shell", bob, approvals.StatusExpired, chat.User{}, 3},
		{"h4", "shell", apAlice, approvals.StatusDenied, apAdmin, 4},
	}
	for i, r := range rows {
		rec := newApprovalRec(r.id, sid, "call_"+r.id)
		rec.ToolName, rec.Requester, rec.RequesterName = r.tool, r.requester.Key(), r.requester.Name
		rec.ExpiresAt = epoch.Add(time.Hour)
		rec.CreatedAt = epoch.Add(time.Duration(i) * time.Second)
		mustCreateApproval(t, db, rec)
		if won, err := db.DecideApproval(ctx, r.id, r.status, r.by, epoch.Add(time.Duration(r.minute)*time.Minute)); !won || err != nil {
			t.Fatalf("DecideApproval(%s) = %t, %v", r.id, won, err)
		}
	}
	mustCreateApproval(t, db, newApprovalRec("pending", sid, "call_p"))

	tests := []struct {
		name  string
		f     approvals.HistoryFilter
		limit int
		want  []string
	}{
		{"all", approvals.HistoryFilter{}, 10, []string{"h4", "h3", "h2", "h1"}},
		{"limit", approvals.HistoryFilter{}, 2, []string{"h4", "h3"}},
		{"denied", approvals.HistoryFilter{Status: approvals.StatusDenied}, 10, []string{"h4", "h2"}},
		{"expired", approvals.HistoryFilter{Status: approvals.StatusExpired}, 10, []string{"h3"}},
		{"requester", approvals.HistoryFilter{Requester: bob.Key()}, 10, []string{"h3", "h2"}},
		{"decided by", approvals.HistoryFilter{DecidedBy: apAdmin.Key()}, 10, []string{"h4", "h1"}},
		{"tool", approvals.HistoryFilter{ToolName: "web_fetch"}, 10, []string{"h2"}},
		{"since, inclusive", approvals.HistoryFilter{Since: epoch.Add(3 * time.Minute)}, 10, []string{"h4", "h3"}},
		{"combined", approvals.HistoryFilter{Status: approvals.StatusDenied, Requester: apAlice.Key(), ToolName: "shell"}, 10, []string{"h4"}},
		{"nothing", approvals.HistoryFilter{DecidedBy: "telegram:nobody"}, 10, []string{}},
		{"max limit", approvals.HistoryFilter{}, approvals.MaxHistory, []string{"h4", "h3", "h2", "h1"}},
	}
	for _, tt := range tests {
		recs, err := db.ApprovalHistory(ctx, tt.f, tt.limit)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		got := []string{}
		for _, r := range recs {
			got = append(got, r.ID)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	// The records are whole: who decided, by name, and when.
	recs, err := db.ApprovalHistory(ctx, approvals.HistoryFilter{}, 1)
	if err != nil || len(recs) != 1 {
		t.Fatalf("ApprovalHistory = %v, %v", recs, err)
	}
	if r := recs[0]; r.DecidedBy != apAdmin.Key() || r.DecidedByName != apAdmin.Name || !r.DecidedAt.Equal(epoch.Add(4*time.Minute)) {
		t.Errorf("newest = decided by %q (%q) at %v", r.DecidedBy, r.DecidedByName, r.DecidedAt)
	}

	for _, bad := range []struct {
		name  string
		f     approvals.HistoryFilter
		limit int
	}{
		{"pending", approvals.HistoryFilter{Status: approvals.StatusPending}, 10},
		{"unknown status", approvals.HistoryFilter{Status: "maybe"}, 10},
		{"limit 0", approvals.HistoryFilter{}, 0},
		{"limit over the maximum", approvals.HistoryFilter{}, approvals.MaxHistory + 1},
	} {
		if recs, err := db.ApprovalHistory(ctx, bad.f, bad.limit); err == nil {
			t.Errorf("%s: %v, no error", bad.name, recs)
		}
	}
}
