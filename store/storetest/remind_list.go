package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/remind"
)

// AllItems is the web console's listing across scopes.
func testAllItems(t *testing.T, s suite) {
	db, _ := s.open(t, Options{})
	ctx := t.Context()
	a := addItem(t, db, reminder("space:slack:T2", "slack:U1", rt0))
	b := addItem(t, db, daily("space:slack:T1", "slack:U2"))
	c := addItem(t, db, reminder("space:slack:T1", "slack:U1", rt0.Add(-time.Hour)))
	d := addItem(t, db, reminder("person:telegram:101", "telegram:101", rt0.Add(time.Hour)))
	gone := addItem(t, db, reminder("space:slack:T1", "slack:U1", rt0))
	if err := db.CancelItem(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PauseItem(ctx, b.ID, true, rt0); err != nil {
		t.Fatal(err)
	}

	list := func(f remind.ItemFilter, limit int) []int64 {
		t.Helper()
		items, err := db.AllItems(ctx, f, limit)
		if err != nil {
			t.Fatalf("AllItems(%+v, %d): %v", f, limit, err)
		}
		var ids []int64
		for _, it := range items {
			ids = append(ids, it.ID)
		}
		return ids
	}
	for _, tc := range []struct {
		name  string
		f     remind.ItemFilter
		limit int
		want  []int64
	}{
		// By scope, then next: the paused schedule is listed, the
		// cancelled reminder is not.
		{"all", remind.ItemFilter{}, 10, []int64{d.ID, c.ID, b.ID, a.ID}},
		{"a page", remind.ItemFilter{}, 2, []int64{d.ID, c.ID}},
		{"the next page", remind.ItemFilter{Offset: 2}, 2, []int64{b.ID, a.ID}},
		{"past the end", remind.ItemFilter{Offset: 4}, 2, nil},
		{"one scope", remind.ItemFilter{Scope: "space:slack:T1"}, 10, []int64{c.ID, b.ID}},
		{"one owner", remind.ItemFilter{Owner: "slack:U1"}, 10, []int64{c.ID, a.ID}},
		{"schedules", remind.ItemFilter{Kind: remind.KindSchedule}, 10, []int64{b.ID}},
		{"reminders of one owner in one scope", remind.ItemFilter{Scope: "space:slack:T2", Owner: "slack:U1", Kind: remind.KindReminder}, 10, []int64{a.ID}},
		{"no such owner", remind.ItemFilter{Owner: "slack:U9"}, 10, nil},
	} {
		if diff := cmp.Diff(tc.want, list(tc.f, tc.limit)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}

	// The items come back whole, as Item reads them.
	items, err := db.AllItems(ctx, remind.ItemFilter{Kind: remind.KindSchedule}, 1)
	if err != nil || len(items) != 1 {
		t.Fatalf("AllItems(schedules) = %v, %v", items, err)
	}
	one, err := db.Item(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(one, items[0]); diff != "" {
		t.Errorf("the schedule listed (-Item +AllItems):\n%s", diff)
	}
}
