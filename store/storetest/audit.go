package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/parleybot/parley/bot"
)

// auditTests cover bot.AuditLog: the instance's trail of what was done
// and by whom.
var auditTests = []test{
	{"IDs", testAuditIDs},
	{"Filters", testAuditFilters},
	{"Paging", testAuditPaging},
	{"Limit", testAuditLimit},
	{"NoAction", testAuditNoAction},
	{"Reopen", testAuditReopen},
}

// auditAt is when the i-th of auditRows was done: a minute apart, each a
// few milliseconds past its minute so that the bounds are tested to the
// millisecond.
func auditAt(i int) time.Time {
	return epoch.Add(time.Duration(i)*time.Minute + 7*time.Millisecond)
}

// auditRows are the entries most tests add, in this order. Their actions
// hold what a careless prefix match would take for wildcards (%, _) and
// neighbours of "." in byte order ("-" before it, "/" after it).
var auditRows = []bot.AuditEntry{
	{At: auditAt(0), Actor: "operator", Action: "console.signin", Target: "", Detail: "from parley console login", Via: "cli"},
	{At: auditAt(1), Actor: "slack:U1", Action: "approval.approve", Target: "ap1", Detail: "shell: ls", Via: "chat"},
	{At: auditAt(2), Actor: "slack:U1", Action: "approval.deny", Target: "ap2", Detail: "shell: rm -rf /", Via: "console"},
	{At: auditAt(3), Actor: "slack:U2", Action: "approval", Target: "ap3", Via: "console"},
	{At: auditAt(4), Actor: "slack:U2", Action: "approvalx.approve", Target: "ap1", Via: "chat"},
	{At: auditAt(5), Actor: "telegram:42", Action: "memory_.forget", Target: "telegram:42", Detail: "ünïcode 注意", Via: "chat"},
	{At: auditAt(6), Actor: "telegram:42", Action: "memoryX.forget", Target: "telegram:42", Via: "chat"},
	{At: auditAt(7), Actor: "operator", Action: "50%.off", Target: "x", Via: "cli"},
	{At: auditAt(8), Actor: "operator", Action: "500.off", Target: "x", Via: "cli"},
	{At: auditAt(9), Actor: "slack:U1", Action: "approval-x.approve", Target: "ap4", Via: "chat"},
	{At: auditAt(10), Actor: "slack:U1", Action: "approval/x", Target: "ap4", Via: "chat"},
	{At: auditAt(11), Actor: "operator", Action: "console.revoke", Target: "0123456789ab", Detail: "2 sessions", Via: "console"},
}

// addAuditRows adds auditRows to db and returns them as stored, their IDs
// filled in from the store (in the order added, checked increasing).
func addAuditRows(t *testing.T, db Store) []bot.AuditEntry {
	t.Helper()
	ctx := t.Context()
	for i, e := range auditRows {
		if err := db.Audit(ctx, e); err != nil {
			t.Fatalf("Audit(row %d): %v", i, err)
		}
	}
	got, err := db.AuditEntries(ctx, bot.AuditFilter{}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(auditRows) {
		t.Fatalf("AuditEntries lists %d entries, want %d", len(got), len(auditRows))
	}
	stored := make([]bot.AuditEntry, len(auditRows))
	for i, e := range got {
		stored[len(got)-1-i] = e
	}
	for i, e := range stored {
		if i > 0 && e.ID <= stored[i-1].ID {
			t.Fatalf("entry %d has ID %d, after %d: want IDs increasing", i, e.ID, stored[i-1].ID)
		}
		want := auditRows[i]
		want.ID = e.ID
		if diff := cmp.Diff(want, e); diff != "" {
			t.Fatalf("entry %d as stored (-want +got):\n%s", i, diff)
		}
	}
	return stored
}

// newestFirst is the stored entries at the indices given, newest first.
func newestFirst(stored []bot.AuditEntry, rows ...int) []bot.AuditEntry {
	var out []bot.AuditEntry
	for i := len(rows) - 1; i >= 0; i-- {
		out = append(out, stored[rows[i]])
	}
	return out
}

// testAuditIDs: the store assigns IDs, increasing, whatever the entry
// says; entries at the same instant keep the order they were added in.
func testAuditIDs(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	for i := range 5 {
		e := bot.AuditEntry{ID: int64(100 - i), At: epoch, Actor: "operator", Action: "console.signin", Detail: fmt.Sprint(i), Via: "cli"}
		if err := db.Audit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.AuditEntries(ctx, bot.AuditFilter{}, 10)
	if err != nil || len(got) != 5 {
		t.Fatalf("AuditEntries = %d entries, %v; want 5", len(got), err)
	}
	for i, e := range got {
		if want := fmt.Sprint(4 - i); e.Detail != want {
			t.Errorf("entry %d is %q, want %q: newest first", i, e.Detail, want)
		}
		if i > 0 && e.ID >= got[i-1].ID {
			t.Errorf("entry %d has ID %d, after %d: want IDs decreasing", i, e.ID, got[i-1].ID)
		}
	}
}

func testAuditFilters(t *testing.T, s suite) {
	db := s.fresh(t)
	stored := addAuditRows(t, db)
	ctx := t.Context()
	const ms = time.Millisecond
	all := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	for _, tt := range []struct {
		name string
		f    bot.AuditFilter
		want []int // indices into auditRows, oldest first
	}{
		{"everything", bot.AuditFilter{}, all},
		{"actor", bot.AuditFilter{Actor: "slack:U1"}, []int{1, 2, 9, 10}},
		{"actor is exact", bot.AuditFilter{Actor: "slack:U"}, nil},
		{"actor is exact, case and all", bot.AuditFilter{Actor: "SLACK:U1"}, nil},
		{"operator", bot.AuditFilter{Actor: "operator"}, []int{0, 7, 8, 11}},
		{"action", bot.AuditFilter{Action: "approval.approve"}, []int{1}},
		{"action without a dot is exact", bot.AuditFilter{Action: "approval"}, []int{3}},
		{"action is exact, case and all", bot.AuditFilter{Action: "Approval.approve"}, nil},
		{"action prefix", bot.AuditFilter{Action: "approval."}, []int{1, 2}},
		{"action prefix, another", bot.AuditFilter{Action: "console."}, []int{0, 11}},
		{"action prefix, case and all", bot.AuditFilter{Action: "APPROVAL."}, nil},
		{"action prefix: _ is itself", bot.AuditFilter{Action: "memory_."}, []int{5}},
		{"action prefix: % is itself", bot.AuditFilter{Action: "50%."}, []int{7}},
		{"action prefix: % alone", bot.AuditFilter{Action: "%."}, nil},
		{"action prefix: _ alone", bot.AuditFilter{Action: "_."}, nil},
		{"action prefix: a longer one", bot.AuditFilter{Action: "approval.approve."}, nil},
		{"action prefix: only a dot", bot.AuditFilter{Action: "."}, nil},
		{"action: a pattern is no prefix", bot.AuditFilter{Action: "approval%"}, nil},
		{"target", bot.AuditFilter{Target: "ap1"}, []int{1, 4}},
		{"target is exact", bot.AuditFilter{Target: "ap"}, nil},
		{"target of a session", bot.AuditFilter{Target: "0123456789ab"}, []int{11}},
		{"since is inclusive", bot.AuditFilter{Since: auditAt(9)}, []int{9, 10, 11}},
		{"since a millisecond later", bot.AuditFilter{Since: auditAt(9).Add(ms)}, []int{10, 11}},
		{"until is exclusive", bot.AuditFilter{Until: auditAt(2)}, []int{0, 1}},
		{"until a millisecond later", bot.AuditFilter{Until: auditAt(2).Add(ms)}, []int{0, 1, 2}},
		{"a window", bot.AuditFilter{Since: auditAt(4), Until: auditAt(7)}, []int{4, 5, 6}},
		{"a zone other than UTC", bot.AuditFilter{Since: auditAt(10).In(time.FixedZone("UTC+9", 9*3600))}, []int{10, 11}},
		{"an empty window", bot.AuditFilter{Since: auditAt(3), Until: auditAt(3)}, nil},
		{"since after until", bot.AuditFilter{Since: auditAt(5), Until: auditAt(3)}, nil},
		{"before", bot.AuditFilter{Before: stored[3].ID}, []int{0, 1, 2}},
		{"before the first", bot.AuditFilter{Before: stored[0].ID}, nil},
		{"before past the last", bot.AuditFilter{Before: stored[11].ID + 100}, all},
		{"actor and action prefix", bot.AuditFilter{Actor: "slack:U1", Action: "approval."}, []int{1, 2}},
		{"actor and target", bot.AuditFilter{Actor: "slack:U2", Target: "ap1"}, []int{4}},
		{"target and window", bot.AuditFilter{Target: "telegram:42", Since: auditAt(6)}, []int{6}},
		{"action prefix and before", bot.AuditFilter{Action: "approval.", Before: stored[2].ID}, []int{1}},
		{"every field", bot.AuditFilter{Actor: "operator", Action: "console.", Target: "0123456789ab",
			Since: auditAt(1), Until: auditAt(12), Before: stored[11].ID + 1}, []int{11}},
		{"fields no entry has together", bot.AuditFilter{Actor: "operator", Target: "ap1"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.AuditEntries(ctx, tt.f, 100)
			if err != nil {
				t.Fatalf("AuditEntries(%+v): %v", tt.f, err)
			}
			if diff := cmp.Diff(newestFirst(stored, tt.want...), got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("AuditEntries(%+v) (-want +got):\n%s", tt.f, diff)
			}
		})
	}
}

// testAuditPaging: pages of limit entries, each Before the last one's
// ID, go back through everything once, with a filter and without.
func testAuditPaging(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	for i := range 25 {
		e := bot.AuditEntry{At: epoch.Add(time.Duration(i) * time.Second), Actor: fmt.Sprintf("slack:U%d", i%2),
			Action: "memory.forget", Target: fmt.Sprint(i), Via: "chat"}
		if err := db.Audit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name  string
		f     bot.AuditFilter
		limit int
		pages []int // the sizes of the pages, then an empty one
	}{
		{"everything by 10", bot.AuditFilter{}, 10, []int{10, 10, 5}},
		{"everything by 5", bot.AuditFilter{}, 5, []int{5, 5, 5, 5, 5}},
		{"everything by 1000", bot.AuditFilter{}, 1000, []int{25}},
		{"an actor by 4", bot.AuditFilter{Actor: "slack:U0"}, 4, []int{4, 4, 4, 1}},
		{"a window by 3", bot.AuditFilter{Since: epoch.Add(5 * time.Second), Until: epoch.Add(12 * time.Second)}, 3, []int{3, 3, 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var targets []string
			f := tt.f
			for p := 0; ; p++ {
				page, err := db.AuditEntries(ctx, f, tt.limit)
				if err != nil {
					t.Fatalf("page %d: %v", p, err)
				}
				if p == len(tt.pages) {
					if len(page) != 0 {
						t.Errorf("page %d has %d entries, want none: the end", p, len(page))
					}
					break
				}
				if len(page) != tt.pages[p] {
					t.Fatalf("page %d has %d entries, want %d", p, len(page), tt.pages[p])
				}
				for _, e := range page {
					targets = append(targets, e.Target)
				}
				f.Before = page[len(page)-1].ID
			}
			var want []string
			for i := 24; i >= 0; i-- {
				at := epoch.Add(time.Duration(i) * time.Second)
				if (tt.f.Actor == "" || tt.f.Actor == fmt.Sprintf("slack:U%d", i%2)) &&
					(tt.f.Since.IsZero() || !at.Before(tt.f.Since)) && (tt.f.Until.IsZero() || at.Before(tt.f.Until)) {
					want = append(want, fmt.Sprint(i))
				}
			}
			if diff := cmp.Diff(want, targets); diff != "" {
				t.Errorf("the pages' entries (-want +got):\n%s", diff)
			}
		})
	}
}

// testAuditLimit: the limit is 1 to 1000; any other is refused.
func testAuditLimit(t *testing.T, s suite) {
	db := s.fresh(t)
	stored := addAuditRows(t, db)
	ctx := t.Context()
	for _, limit := range []int{0, -1, 1001, 1 << 40} {
		if got, err := db.AuditEntries(ctx, bot.AuditFilter{}, limit); err == nil {
			t.Errorf("AuditEntries(limit %d) = %d entries, nil; want an error", limit, len(got))
		}
	}
	for _, tt := range []struct {
		limit int
		want  []int
	}{
		{1, []int{11}},
		{3, []int{9, 10, 11}},
		{12, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
		{1000, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
	} {
		got, err := db.AuditEntries(ctx, bot.AuditFilter{}, tt.limit)
		if diff := cmp.Diff(newestFirst(stored, tt.want...), got); err != nil || diff != "" {
			t.Errorf("AuditEntries(limit %d): %v (-want +got):\n%s", tt.limit, err, diff)
		}
	}
}

// testAuditNoAction: an entry must say what was done.
func testAuditNoAction(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	if err := db.Audit(ctx, bot.AuditEntry{At: epoch, Actor: "operator", Via: "cli"}); err == nil {
		t.Error("Audit of an entry without an action succeeded; want an error")
	}
	if got, err := db.AuditEntries(ctx, bot.AuditFilter{}, 10); err != nil || len(got) != 0 {
		t.Errorf("AuditEntries = %+v, %v; want none", got, err)
	}
}

// testAuditReopen: the log outlives a restart, and entries added after it
// get IDs past the old ones.
func testAuditReopen(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	stored := addAuditRows(t, db)
	ctx := t.Context()
	closeNow(t, db)
	db = reopen()
	got, err := db.AuditEntries(ctx, bot.AuditFilter{}, 1000)
	if diff := cmp.Diff(newestFirst(stored, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), got); err != nil || diff != "" {
		t.Fatalf("after a restart, AuditEntries: %v (-want +got):\n%s", err, diff)
	}
	if err := db.Audit(ctx, bot.AuditEntry{At: auditAt(0), Actor: "operator", Action: "console.signin", Via: "cli"}); err != nil {
		t.Fatal(err)
	}
	got, err = db.AuditEntries(ctx, bot.AuditFilter{}, 1)
	if err != nil || len(got) != 1 || got[0].ID <= stored[11].ID || !got[0].At.Equal(auditAt(0)) {
		t.Errorf("after a restart, the newest entry = %+v, %v; want the new one, its ID past %d", got, err, stored[11].ID)
	}
}
