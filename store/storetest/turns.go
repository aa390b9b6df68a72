package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/bot"
)

// turnTests cover Inbox.FinishTurn and bot.TurnBook: how turns ended,
// counted per hour, outcome and latency, as the console's overview reads
// them.
var turnTests = []test{
	{"FinishTurn", testFinishTurn},
	{"Hours", testTurnHours},
	{"Concurrent", testTurnsConcurrent},
}

// testFinishTurn: the turn's keys are done and its count kept, together;
// an unknown key is reported and the rest still kept; a restart keeps it.
func testFinishTurn(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	ctx := t.Context()
	for _, k := range []string{"a", "b", "c"} {
		if _, err := db.Accept(ctx, k, "telegram", []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	rec := bot.TurnRecord{At: epoch.Add(1500 * time.Millisecond), Outcome: bot.TurnAnswered, Latency: 405 * time.Millisecond}
	if err := db.FinishTurn(ctx, []string{"a", "b"}, rec); err != nil {
		t.Fatalf("FinishTurn: %v", err)
	}
	resumed := bot.TurnRecord{At: epoch.Add(2 * time.Second), Outcome: bot.TurnAnswered}
	if err := db.FinishTurn(ctx, []string{"c", "never-seen"}, resumed); !s.notFound(err) {
		t.Errorf("FinishTurn with an unknown key: %v, want not found", err)
	}
	closeNow(t, db)
	db = reopen()
	if items, err := db.Unfinished(ctx); err != nil || len(items) != 0 {
		t.Errorf("Unfinished after FinishTurn = %v, %v; want none", items, err)
	}
	got, err := db.TurnHours(ctx, epoch, epoch.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := []bot.TurnHour{
		{Hour: epoch, Outcome: bot.TurnAnswered, Latency: 0, N: 1},                      // the resumed one: unknown
		{Hour: epoch, Outcome: bot.TurnAnswered, Latency: 410 * time.Millisecond, N: 1}, // bot.LatencyBucket's
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("TurnHours (-want +got):\n%s", diff)
	}
}

// testTurnHours: counts add up per hour, outcome and latency bucket;
// [since, until) is read on the hour, ordered by hour, outcome, latency.
func testTurnHours(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	for _, r := range []bot.TurnRecord{
		{At: epoch.Add(59 * time.Minute), Outcome: bot.TurnAnswered, Latency: 1201 * time.Millisecond},
		{At: epoch.Add(10 * time.Minute), Outcome: bot.TurnAnswered, Latency: 1250 * time.Millisecond}, // the same bucket: 1.3 s
		{At: epoch.Add(time.Minute), Outcome: bot.TurnAnswered, Latency: 90 * time.Millisecond},
		{At: epoch, Outcome: bot.TurnFailed, Latency: 3 * time.Second},
		{At: epoch.Add(time.Hour), Outcome: bot.TurnStopped, Latency: time.Minute},
		{At: epoch.Add(3*time.Hour - time.Millisecond), Outcome: bot.TurnNotRun},
		{At: epoch.Add(-time.Millisecond), Outcome: bot.TurnAnswered, Latency: time.Second}, // the hour before
	} {
		if err := db.FinishTurn(ctx, nil, r); err != nil {
			t.Fatal(err)
		}
	}
	first := []bot.TurnHour{
		{Hour: epoch, Outcome: bot.TurnAnswered, Latency: 90 * time.Millisecond, N: 1},
		{Hour: epoch, Outcome: bot.TurnAnswered, Latency: 1300 * time.Millisecond, N: 2},
		{Hour: epoch, Outcome: bot.TurnFailed, Latency: 3 * time.Second, N: 1},
	}
	second := bot.TurnHour{Hour: epoch.Add(time.Hour), Outcome: bot.TurnStopped, Latency: time.Minute, N: 1}
	third := bot.TurnHour{Hour: epoch.Add(2 * time.Hour), Outcome: bot.TurnNotRun, N: 1}
	for _, tc := range []struct {
		name         string
		since, until time.Time
		want         []bot.TurnHour
	}{
		{"three hours", epoch, epoch.Add(3 * time.Hour), append(first[:3:3], second, third)},
		{"until excluded", epoch, epoch.Add(time.Hour), first},
		{"read on the hour", epoch.Add(30 * time.Minute), epoch.Add(2*time.Hour + 59*time.Minute), append(first[:3:3], second)},
		{"none", epoch.Add(5 * time.Hour), epoch.Add(6 * time.Hour), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.TurnHours(ctx, tc.since, tc.until)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// testTurnsConcurrent: turns ending at once in the same hour and bucket —
// on one replica or several — all count.
func testTurnsConcurrent(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	other := reopen()
	ctx := t.Context()
	const each = 20
	var wg sync.WaitGroup
	for i := range 4 {
		h := db
		if i%2 == 1 {
			h = other
		}
		wg.Go(func() {
			for range each {
				if err := h.FinishTurn(ctx, nil, bot.TurnRecord{At: epoch, Outcome: bot.TurnAnswered, Latency: time.Second}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	got, err := db.TurnHours(ctx, epoch, epoch.Add(time.Hour))
	if want := []bot.TurnHour{{Hour: epoch, Outcome: bot.TurnAnswered, Latency: time.Second, N: 4 * each}}; err != nil || !cmp.Equal(want, got) {
		t.Errorf("TurnHours = %+v, %v; want %+v", got, err, want)
	}
}
