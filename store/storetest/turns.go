package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/bot"
)

// turnTests cover Inbox.FinishTurn and bot.TurnBook: how each turn ended,
// as the console's overview reads it.
var turnTests = []test{
	{"FinishTurn", testFinishTurn},
	{"Between", testTurnsBetween},
}

// testFinishTurn: the turn's keys are done and its record kept, together;
// an unknown key is reported and the rest still kept; a restart keeps it.
func testFinishTurn(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	ctx := t.Context()
	for _, k := range []string{"a", "b", "c"} {
		if _, err := db.Accept(ctx, k, "telegram", []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	rec := bot.TurnRecord{At: epoch.Add(1500 * time.Millisecond), Platform: "telegram", Agent: "default", Outcome: bot.TurnAnswered, Latency: 420 * time.Millisecond}
	if err := db.FinishTurn(ctx, []string{"a", "b"}, rec); err != nil {
		t.Fatalf("FinishTurn: %v", err)
	}
	resumed := bot.TurnRecord{At: epoch.Add(2 * time.Second), Platform: "telegram", Agent: "ops", Outcome: bot.TurnFailed}
	if err := db.FinishTurn(ctx, []string{"c", "never-seen"}, resumed); !s.notFound(err) {
		t.Errorf("FinishTurn with an unknown key: %v, want not found", err)
	}
	closeNow(t, db)
	db = reopen()
	if items, err := db.Unfinished(ctx); err != nil || len(items) != 0 {
		t.Errorf("Unfinished after FinishTurn = %v, %v; want none", items, err)
	}
	got, err := db.TurnsBetween(ctx, epoch, epoch.Add(time.Minute), 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]bot.TurnRecord{rec, resumed}, got); diff != "" {
		t.Errorf("TurnsBetween (-want +got):\n%s", diff)
	}
}

// testTurnsBetween: [since, until) to the millisecond, oldest first, at
// most limit.
func testTurnsBetween(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	var all []bot.TurnRecord
	for i := range 5 {
		r := bot.TurnRecord{At: epoch.Add(time.Duration(i) * time.Second), Platform: "slack", Agent: "default",
			Outcome: bot.TurnAnswered, Latency: time.Duration(i+1) * time.Second}
		if err := db.FinishTurn(ctx, nil, r); err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	for _, tc := range []struct {
		name         string
		since, until time.Time
		limit        int
		want         []bot.TurnRecord
	}{
		{"all", epoch, epoch.Add(time.Hour), 0, all},
		{"until excluded", epoch, epoch.Add(2 * time.Second), 0, all[:2]},
		{"since included", epoch.Add(3 * time.Second), epoch.Add(time.Hour), 0, all[3:]},
		{"a millisecond later", epoch.Add(3*time.Second + time.Millisecond), epoch.Add(time.Hour), 0, all[4:]},
		{"limit", epoch, epoch.Add(time.Hour), 2, all[:2]},
		{"none", epoch.Add(time.Hour), epoch.Add(2 * time.Hour), 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.TurnsBetween(ctx, tc.since, tc.until, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
