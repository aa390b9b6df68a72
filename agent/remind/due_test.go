package remind

import (
	"testing"
	"time"
)

func TestDue(t *testing.T) {
	const grace = time.Hour
	nine := utc("2026-10-20 07:00:00") // 09:00 CEST
	once := Item{ID: 7, Zone: "Europe/Berlin", Next: nine}
	daily := Item{ID: 8, Spec: "0 9 * * *", Zone: "Europe/Berlin", Next: nine}
	tests := []struct {
		name string
		item Item
		now  time.Time
		want Decision
	}{
		{"one-off not yet", once, nine.Add(-time.Second), Decision{Next: nine}},
		{"one-off on time", once, nine, Decision{Deliver: true, Done: true}},
		{"one-off within a minute is not late", once, nine.Add(time.Minute), Decision{Deliver: true, Done: true}},
		{"one-off late", once, nine.Add(10 * time.Minute), Decision{Deliver: true, Late: 10 * time.Minute, Done: true}},
		{"one-off late by exactly grace", once, nine.Add(grace), Decision{Deliver: true, Late: grace, Done: true}},
		{"one-off beyond grace", once, nine.Add(2 * time.Hour), Decision{Missed: true, Late: 2 * time.Hour, Done: true}},
		{"daily on time", daily, nine, Decision{Deliver: true, Next: nine.Add(24 * time.Hour)}},
		{"daily late", daily, nine.Add(30 * time.Minute), Decision{Deliver: true, Late: 30 * time.Minute, Next: nine.Add(24 * time.Hour)}},
		{"daily missed for three days: one report, then the next future one", daily, nine.Add(3*24*time.Hour + 2*time.Hour),
			Decision{Missed: true, Late: 3*24*time.Hour + 2*time.Hour, Next: nine.Add(4 * 24 * time.Hour)}},
		{"daily missed across the change", Item{Spec: "0 9 * * *", Zone: "Europe/Berlin", Next: utc("2026-10-24 07:00:00")},
			utc("2026-10-25 07:30:00"), // 08:30 CET
			Decision{Missed: true, Late: 24*time.Hour + 30*time.Minute, Next: utc("2026-10-25 08:00:00")}},
		{"a recurrence with no more occurrences is done", Item{Spec: "0 0 30 2 *", Zone: "UTC", Next: nine}, nine,
			Decision{Deliver: true, Done: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Due(tt.item, tt.now, grace); got != tt.want {
				t.Errorf("Due = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestClaimJudgeAndKey(t *testing.T) {
	occ := utc("2026-10-20 07:00:00")
	c := Claim{Item: Item{ID: 42, Next: occ}, Occurrence: occ, Decision: Decision{Deliver: true, Next: occ.Add(24 * time.Hour)}}
	if got, want := c.Key(), "remind:42:1792479600000"; got != want {
		t.Errorf("Key = %q, want %q", got, want)
	}
	later := c.Judge(occ.Add(3*time.Hour), time.Hour)
	want := Decision{Missed: true, Late: 3 * time.Hour, Next: occ.Add(24 * time.Hour)}
	if later.Decision != want {
		t.Errorf("judged 3 h later = %+v, want %+v", later.Decision, want)
	}
	if later.Key() != c.Key() {
		t.Errorf("judging changed the key: %q", later.Key())
	}
	if c.Judge(occ.Add(5*time.Minute), time.Hour).Decision.Late != 5*time.Minute {
		t.Error("5 min later is not late by 5 min")
	}
}
