package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/remind"
)

var remindTests = []test{
	{"ItemsCRUD", testItemsCRUD},
	{"ItemsOf", testItemsOf},
	{"ItemsCap", testItemsCap},
	{"CancelAndPause", testCancelAndPause},
	{"AllItems", testAllItems},
	{"ClaimDue", testClaimDue},
	{"ClaimDueConcurrent", testClaimDueConcurrent},
	{"PendingClaims", testPendingClaims},
	{"RecordItemRun", testRecordItemRun},
	{"ReminderStats", testReminderStats},
}

// rt0 is 09:00 in Berlin (CEST) on a Tuesday, where the reminder tests
// start.
var rt0 = time.Date(2026, 10, 20, 7, 0, 0, 0, time.UTC)

// reminder is a one-off of owner in scope, due at next.
func reminder(scope, owner string, next time.Time) remind.Item {
	return remind.Item{Kind: remind.KindReminder, Scope: scope, Owner: owner, Targets: []string{owner},
		Place: remind.Place{Platform: "slack", Space: "T1", Chat: "C1", Thread: "1700000000.000100"},
		Text:  "stand-up", Zone: "Europe/Berlin", Next: next}
}

// daily is a 09:00 Berlin schedule of owner in scope, next due at rt0.
func daily(scope, owner string) remind.Item {
	it := reminder(scope, owner, rt0)
	it.Kind, it.Spec, it.Text, it.Targets = remind.KindSchedule, "0 9 * * *", "summarize the open issues", nil
	it.Place = remind.Place{Platform: "telegram", Chat: "101", Direct: true}
	return it
}

func addItem(t *testing.T, db Store, it remind.Item) remind.Item {
	t.Helper()
	id, err := db.AddItem(t.Context(), it, 0)
	if err != nil {
		t.Fatalf("AddItem: %v", err)
	}
	got, err := db.Item(t.Context(), id)
	if err != nil {
		t.Fatalf("Item(%d): %v", id, err)
	}
	return got
}

func testItemsCRUD(t *testing.T, s suite) {
	db, _ := s.open(t, Options{Now: func() time.Time { return epoch }})
	ctx := t.Context()
	a := reminder("space:slack:T1", "slack:U1", rt0.Add(2*time.Hour))
	a.Targets = []string{"slack:U1", "slack:U2"}
	got := addItem(t, db, a)
	want := a
	want.ID, want.Status, want.CreatedAt = got.ID, remind.StatusActive, epoch
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("the item read back (-want +got):\n%s", diff)
	}
	b := addItem(t, db, daily("space:slack:T1", "slack:U2"))
	c := addItem(t, db, reminder("space:slack:T1", "slack:U1", rt0.Add(time.Hour)))
	addItem(t, db, reminder("space:slack:T2", "slack:U1", rt0)) // another scope
	if b.Targets != nil || !b.Place.Direct || b.Spec != "0 9 * * *" || !b.LastRun.IsZero() {
		t.Errorf("the schedule read back: %+v", b)
	}

	ids := func(items []remind.Item) []int64 {
		var out []int64
		for _, it := range items {
			out = append(out, it.ID)
		}
		return out
	}
	all, err := db.Items(ctx, "space:slack:T1", "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{b.ID, c.ID, got.ID}, ids(all)); diff != "" {
		t.Errorf("everyone's items by next (-want +got):\n%s", diff)
	}
	mine, _ := db.Items(ctx, "space:slack:T1", "slack:U1")
	if diff := cmp.Diff([]int64{c.ID, got.ID}, ids(mine)); diff != "" {
		t.Errorf("U1's items (-want +got):\n%s", diff)
	}
	// Paused items are listed, cancelled ones are not.
	if _, err := db.PauseItem(ctx, c.ID, true, rt0); err != nil {
		t.Fatal(err)
	}
	if err := db.CancelItem(ctx, got.ID); err != nil {
		t.Fatal(err)
	}
	mine, _ = db.Items(ctx, "space:slack:T1", "slack:U1")
	if len(mine) != 1 || mine[0].ID != c.ID || mine[0].Status != remind.StatusPaused {
		t.Errorf("U1's items after a pause and a cancel: %+v", mine)
	}

	if _, err := db.Item(ctx, 999); !s.notFound(err) {
		t.Errorf("Item(999) = %v, want not found", err)
	}
	bad := reminder("space:slack:T1", "", rt0)
	if _, err := db.AddItem(ctx, bad, 0); !errors.Is(err, remind.ErrInvalid) {
		t.Errorf("AddItem without an owner = %v, want ErrInvalid", err)
	}
	done := reminder("space:slack:T1", "slack:U1", rt0)
	done.Status = remind.StatusDone
	if _, err := db.AddItem(ctx, done, 0); !errors.Is(err, remind.ErrInvalid) {
		t.Errorf("AddItem of a done item = %v, want ErrInvalid", err)
	}
}

// testItemsOf: a person's items in every scope, by next, their paused
// ones with them, not their cancelled ones nor anyone else's.
func testItemsOf(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	late := addItem(t, db, reminder("space:slack:T1", "slack:U1", rt0.Add(time.Hour)))
	early := addItem(t, db, daily("person:slack:U1", "slack:U1"))
	paused := addItem(t, db, reminder("space:slack:T2", "slack:U1", rt0.Add(2*time.Hour)))
	gone := addItem(t, db, reminder("space:slack:T1", "slack:U1", rt0))
	addItem(t, db, reminder("space:slack:T1", "slack:U2", rt0)) // someone else's
	if _, err := db.PauseItem(ctx, paused.ID, true, rt0); err != nil {
		t.Fatal(err)
	}
	if err := db.CancelItem(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	got, err := db.ItemsOf(ctx, "slack:U1")
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, it := range got {
		ids = append(ids, it.ID)
	}
	if diff := cmp.Diff([]int64{early.ID, late.ID, paused.ID}, ids); diff != "" {
		t.Errorf("U1's items (-want +got):\n%s", diff)
	}
	if none, err := db.ItemsOf(ctx, "slack:U9"); err != nil || len(none) != 0 {
		t.Errorf("a stranger's items: %v, %v", none, err)
	}
}

func testItemsCap(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	ctx := t.Context()
	const scope, owner = "space:slack:T1", "slack:U1"
	first := addItem(t, db, reminder(scope, owner, rt0))
	paused := addItem(t, db, reminder(scope, owner, rt0))
	if _, err := db.PauseItem(ctx, paused.ID, true, rt0); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		it   remind.Item
		max  int
		err  error
	}{
		{"active and paused count", reminder(scope, owner, rt0), 2, remind.ErrCap},
		{"under the cap", reminder(scope, owner, rt0), 3, nil},
		{"another owner", reminder(scope, "slack:U2", rt0), 1, nil},
		{"another scope", reminder("person:slack:U1", owner, rt0), 1, nil},
		{"no cap", reminder(scope, owner, rt0), 0, nil},
	}
	for _, tt := range tests {
		if _, err := db.AddItem(ctx, tt.it, tt.max); !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
			t.Errorf("%s: AddItem = %v, want %v", tt.name, err, tt.err)
		}
	}
	// Finished items free their place.
	if err := db.CancelItem(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	mine, _ := db.Items(ctx, scope, owner)
	if _, err := db.AddItem(ctx, reminder(scope, owner, rt0), len(mine)+1); err != nil {
		t.Errorf("AddItem after a cancel: %v", err)
	}

	// The check and the insert are one transaction: of ten adds at
	// once, on two handles, against a cap of five, exactly five succeed.
	dbs := []Store{db, reopen()}
	var wg sync.WaitGroup
	var mu sync.Mutex
	added, capped := 0, 0
	for i := range 10 {
		wg.Go(func() {
			_, err := dbs[i%2].AddItem(ctx, reminder("space:slack:T9", owner, rt0), 5)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				added++
			case errors.Is(err, remind.ErrCap):
				capped++
			default:
				t.Errorf("AddItem: %v", err)
			}
		})
	}
	wg.Wait()
	if added != 5 || capped != 5 {
		t.Errorf("%d added and %d capped, want 5 and 5", added, capped)
	}
}

func testCancelAndPause(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	d := addItem(t, db, daily("person:telegram:101", "telegram:101"))
	one := addItem(t, db, reminder("person:telegram:101", "telegram:101", rt0.Add(time.Hour)))

	// Paused items are not due.
	if _, err := db.PauseItem(ctx, d.ID, true, rt0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PauseItem(ctx, d.ID, true, rt0); err != nil {
		t.Errorf("pausing twice: %v", err)
	}
	if next, ok, _ := db.NextItemDue(ctx); !ok || !next.Equal(one.Next) {
		t.Errorf("NextItemDue with the schedule paused = %v, %v; want the one-off's %v", next, ok, one.Next)
	}
	if claims, _ := db.ClaimDue(ctx, rt0.Add(30*time.Minute), time.Hour, 10); len(claims) != 0 {
		t.Errorf("a paused item was claimed: %+v", claims)
	}
	// Resuming three days later skips what it missed while paused.
	if _, err := db.RecordItemRun(ctx, d.ID, false, "boom", rt0); err != nil {
		t.Fatal(err)
	}
	resumed, err := db.PauseItem(ctx, d.ID, false, rt0.Add(3*24*time.Hour+time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if want := rt0.Add(4 * 24 * time.Hour); resumed.Status != remind.StatusActive || !resumed.Next.Equal(want) || resumed.Failures != 0 {
		t.Errorf("resumed: %s, next %v, %d failures; want active, %v, 0", resumed.Status, resumed.Next, resumed.Failures, want)
	}
	if got, _ := db.Item(ctx, d.ID); !got.Next.Equal(resumed.Next) || got.Status != remind.StatusActive {
		t.Errorf("stored after resume: %+v", got)
	}
	// A one-off keeps its time.
	db.PauseItem(ctx, one.ID, true, rt0)
	if got, err := db.PauseItem(ctx, one.ID, false, rt0.Add(5*time.Hour)); err != nil || !got.Next.Equal(one.Next) {
		t.Errorf("resumed one-off: next %v, %v; want %v", got.Next, err, one.Next)
	}

	// Cancelling drops the undelivered claims.
	claims, err := db.ClaimDue(ctx, rt0.Add(2*time.Hour), time.Hour, 10)
	if err != nil || len(claims) != 1 {
		t.Fatalf("ClaimDue = %+v, %v; want the one-off", claims, err)
	}
	if err := db.CancelItem(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if pending, _ := db.PendingClaims(ctx); len(pending) != 1 {
		t.Errorf("cancelling one item dropped another's claim: %+v", pending)
	}

	tests := []struct {
		name string
		op   func() error
		err  error
	}{
		{"cancel twice", func() error { return db.CancelItem(ctx, d.ID) }, remind.ErrFinished},
		{"pause cancelled", func() error { _, err := db.PauseItem(ctx, d.ID, true, rt0); return err }, remind.ErrFinished},
		{"resume done", func() error { _, err := db.PauseItem(ctx, one.ID, false, rt0); return err }, remind.ErrFinished},
		{"cancel done", func() error { return db.CancelItem(ctx, one.ID) }, remind.ErrFinished},
		{"cancel unknown", func() error { return db.CancelItem(ctx, 999) }, s.e.NotFound},
		{"pause unknown", func() error { _, err := db.PauseItem(ctx, 999, true, rt0); return err }, s.e.NotFound},
	}
	for _, tt := range tests {
		if err := tt.op(); !errors.Is(err, tt.err) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.err)
		}
	}
}

func testClaimDue(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	d := addItem(t, db, daily("space:slack:T1", "slack:U1"))
	one := addItem(t, db, reminder("space:slack:T1", "slack:U1", rt0.Add(-3*time.Hour)))
	later := addItem(t, db, reminder("space:slack:T1", "slack:U1", rt0.Add(time.Hour)))

	if next, ok, err := db.NextItemDue(ctx); err != nil || !ok || !next.Equal(one.Next) {
		t.Fatalf("NextItemDue = %v, %v, %v; want %v", next, ok, err, one.Next)
	}
	now := rt0.Add(10 * time.Minute)
	claims, err := db.ClaimDue(ctx, now, time.Hour, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []remind.Claim{
		{Item: one, Occurrence: one.Next, Decision: remind.Decision{Missed: true, Late: 3*time.Hour + 10*time.Minute, Done: true}},
		{Item: d, Occurrence: d.Next, Decision: remind.Decision{Deliver: true, Late: 10 * time.Minute, Next: rt0.Add(24 * time.Hour)}},
	}
	if diff := cmp.Diff(want, claims); diff != "" {
		t.Fatalf("claims (-want +got):\n%s", diff)
	}
	// The items moved on: the one-off is done, the schedule is due
	// tomorrow at 09:00, and the later one is next.
	if got, _ := db.Item(ctx, one.ID); got.Status != remind.StatusDone {
		t.Errorf("the one-off is %s, want done", got.Status)
	}
	if got, _ := db.Item(ctx, d.ID); got.Status != remind.StatusActive || !got.Next.Equal(rt0.Add(24*time.Hour)) {
		t.Errorf("the schedule: %s, next %v", got.Status, got.Next)
	}
	if next, _, _ := db.NextItemDue(ctx); !next.Equal(later.Next) {
		t.Errorf("NextItemDue = %v, want %v", next, later.Next)
	}
	// Idempotent: a second claim at the same moment finds nothing.
	if again, err := db.ClaimDue(ctx, now, time.Hour, 10); err != nil || len(again) != 0 {
		t.Errorf("a second ClaimDue = %+v, %v; want none", again, err)
	}

	// The limit takes the earliest first.
	for i := range 5 {
		addItem(t, db, reminder("space:slack:T2", "slack:U1", rt0.Add(time.Duration(5-i)*time.Minute)))
	}
	got, err := db.ClaimDue(ctx, rt0.Add(2*time.Hour), time.Hour, 3)
	if err != nil || len(got) != 3 {
		t.Fatalf("ClaimDue with limit 3 = %d claims, %v", len(got), err)
	}
	for i, c := range got {
		if want := rt0.Add(time.Duration(i+1) * time.Minute); !c.Occurrence.Equal(want) {
			t.Errorf("claim %d is due %v, want %v", i, c.Occurrence, want)
		}
	}
}

// A crash between the claim and the delivery leaves the claim pending,
// also after the database is opened again; marking it delivered, once or
// twice, clears it.
func testPendingClaims(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	ctx := t.Context()
	addItem(t, db, daily("space:slack:T1", "slack:U1"))
	one := addItem(t, db, reminder("space:slack:T1", "slack:U1", rt0))
	claims, err := db.ClaimDue(ctx, rt0, time.Hour, 10)
	if err != nil || len(claims) != 2 {
		t.Fatalf("ClaimDue = %+v, %v", claims, err)
	}
	if err := db.ClaimDelivered(ctx, claims[0]); err != nil {
		t.Fatal(err)
	}
	closeNow(t, db) // the crash

	db = reopen()
	pending, err := db.PendingClaims(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := claims[1]
	want.Decision = remind.Decision{Done: true} // lateness is for the deliverer to judge
	if claims[1].Item.ID != one.ID {
		want.Decision = remind.Decision{Next: rt0.Add(24 * time.Hour)}
	}
	if diff := cmp.Diff([]remind.Claim{want}, pending); diff != "" {
		t.Fatalf("pending after the crash (-want +got):\n%s", diff)
	}
	if pending[0].Key() != claims[1].Key() {
		t.Errorf("the pending claim's key %q is not the claim's %q", pending[0].Key(), claims[1].Key())
	}
	for range 2 {
		if err := db.ClaimDelivered(ctx, pending[0]); err != nil {
			t.Fatal(err)
		}
	}
	if pending, _ := db.PendingClaims(ctx); len(pending) != 0 {
		t.Errorf("pending after delivery: %+v", pending)
	}
}

func testRecordItemRun(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	d := addItem(t, db, daily("space:slack:T1", "slack:U1"))
	steps := []struct {
		ok       bool
		paused   bool
		failures int
		status   remind.Status
	}{
		{false, false, 1, remind.StatusActive},
		{false, false, 2, remind.StatusActive},
		{true, false, 0, remind.StatusActive}, // a success resets the count
		{false, false, 1, remind.StatusActive},
		{false, false, 2, remind.StatusActive},
		{false, true, 3, remind.StatusPaused},  // the third in a row pauses
		{false, false, 4, remind.StatusPaused}, // and says so once
	}
	for i, s := range steps {
		at := rt0.Add(time.Duration(i) * 24 * time.Hour)
		result := map[bool]string{true: "3 issues open", false: "tool failed"}[s.ok]
		paused, err := db.RecordItemRun(ctx, d.ID, s.ok, result, at)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := db.Item(ctx, d.ID)
		if paused != s.paused || got.Failures != s.failures || got.Status != s.status || !got.LastRun.Equal(at) || got.LastResult != result {
			t.Errorf("run %d (ok %v): paused %v, %d failures, %s, last %v %q; want %v, %d, %s",
				i, s.ok, paused, got.Failures, got.Status, got.LastRun, got.LastResult, s.paused, s.failures, s.status)
		}
	}
	if _, err := db.RecordItemRun(ctx, 999, true, "", rt0); !s.notFound(err) {
		t.Errorf("RecordItemRun(999) = %v, want not found", err)
	}
}

func testReminderStats(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	if st, err := db.ReminderStats(ctx, rt0); err != nil || st != (remind.Stats{}) {
		t.Fatalf("empty: %+v, %v", st, err)
	}
	if _, ok, err := db.NextItemDue(ctx); ok || err != nil {
		t.Fatalf("NextItemDue with nothing = %v, %v", ok, err)
	}
	addItem(t, db, reminder("s", "o", rt0.Add(-2*time.Minute)))  // overdue
	addItem(t, db, reminder("s", "o", rt0.Add(-30*time.Second))) // due, not overdue
	addItem(t, db, reminder("s", "o", rt0.Add(time.Hour)))
	p := addItem(t, db, reminder("s", "o", rt0.Add(-time.Hour)))
	c := addItem(t, db, reminder("s", "o", rt0))
	db.PauseItem(ctx, p.ID, true, rt0)
	db.CancelItem(ctx, c.ID)
	st, err := db.ReminderStats(ctx, rt0)
	if err != nil {
		t.Fatal(err)
	}
	want := remind.Stats{Active: 3, Paused: 1, Cancelled: 1, Next: rt0.Add(-2 * time.Minute), Overdue: 1}
	if st != want {
		t.Errorf("stats = %+v, want %+v", st, want)
	}
	if _, err := db.ClaimDue(ctx, rt0, time.Hour, 10); err != nil {
		t.Fatal(err)
	}
	st, _ = db.ReminderStats(ctx, rt0)
	want = remind.Stats{Active: 1, Paused: 1, Done: 2, Cancelled: 1, Next: rt0.Add(time.Hour), Undelivered: 2}
	if st != want {
		t.Errorf("stats after a claim = %+v, want %+v", st, want)
	}
}
