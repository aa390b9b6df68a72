package remind

import (
	"testing"
	"time"
)

// occurrences lists item's next n occurrences after from.
func occurrences(item Item, from time.Time, n int) []time.Time {
	var out []time.Time
	for range n {
		next, ok := Next(item, from)
		if !ok {
			break
		}
		out = append(out, next)
		from = next
	}
	return out
}

func TestNext(t *testing.T) {
	tests := []struct {
		name string
		item Item
		from time.Time
		want []string // UTC
	}{
		{
			// 09:00 local on both sides of the autumn change: 07:00
			// UTC in summer time, 08:00 in winter time.
			name: "daily 09:00 across the autumn change",
			item: Item{Spec: "0 9 * * *", Zone: "Europe/Berlin"},
			from: utc("2026-10-23 12:00:00"),
			want: []string{"2026-10-24 07:00:00", "2026-10-25 08:00:00", "2026-10-26 08:00:00"},
		},
		{
			name: "daily 09:00 across the spring change",
			item: Item{Spec: "0 9 * * *", Zone: "Europe/Berlin"},
			from: utc("2027-03-26 12:00:00"),
			want: []string{"2027-03-27 08:00:00", "2027-03-28 07:00:00", "2027-03-29 07:00:00"},
		},
		{
			name: "02:30 does not occur the night the clocks jump over it",
			item: Item{Spec: "30 2 * * *", Zone: "Europe/Berlin"},
			from: utc("2027-03-26 12:00:00"),
			want: []string{"2027-03-27 01:30:00", "2027-03-29 00:30:00"},
		},
		{
			name: "02:30 fires once the night it occurs twice: the first",
			item: Item{Spec: "30 2 * * *", Zone: "Europe/Berlin"},
			from: utc("2026-10-24 12:00:00"),
			want: []string{"2026-10-25 00:30:00", "2026-10-26 01:30:00"},
		},
		{
			name: "hourly keeps to the clock through the repeated hour",
			item: Item{Spec: "0 * * * *", Zone: "Europe/Berlin"},
			from: utc("2026-10-24 22:30:00"), // 00:30 CEST
			want: []string{"2026-10-24 23:00:00", "2026-10-25 00:00:00", "2026-10-25 01:00:00", "2026-10-25 02:00:00"},
		},
		{
			name: "strictly after",
			item: Item{Spec: "0 9 * * *", Zone: "UTC"},
			from: utc("2026-10-20 09:00:00"),
			want: []string{"2026-10-21 09:00:00"},
		},
		{
			name: "weekdays in New York",
			item: Item{Spec: "0 9 * * 1-5", Zone: "America/New_York"},
			from: utc("2026-10-23 14:00:00"), // Friday 10:00 EDT
			want: []string{"2026-10-26 13:00:00", "2026-10-27 13:00:00"},
		},
		{name: "one-off", item: Item{Zone: "Europe/Berlin"}, from: utc("2026-10-20 00:00:00")},
		{name: "unknown zone", item: Item{Spec: "0 9 * * *", Zone: "Mars/Olympus"}, from: utc("2026-10-20 00:00:00")},
		{name: "no zone", item: Item{Spec: "0 9 * * *"}, from: utc("2026-10-20 00:00:00")},
		{name: "bad spec", item: Item{Spec: "0 9 * *", Zone: "UTC"}, from: utc("2026-10-20 00:00:00")},
		{name: "never", item: Item{Spec: "0 0 30 2 *", Zone: "UTC"}, from: utc("2026-10-20 00:00:00")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := occurrences(tt.item, tt.from, len(tt.want)+1)
			if len(tt.want) == 0 {
				if len(got) != 0 {
					t.Fatalf("Next = %v, want none", got)
				}
				return
			}
			for i, w := range tt.want {
				if i >= len(got) || !got[i].Equal(utc(w)) {
					t.Fatalf("occurrences = %v, want %v first", got, tt.want)
				}
				if got[i].Location() != time.UTC {
					t.Errorf("occurrence %v is not in UTC", got[i])
				}
			}
		})
	}
}

func TestValidate(t *testing.T) {
	ok := Item{Kind: KindReminder, Scope: "space:slack:T1", Owner: "slack:U1", Text: "stand-up",
		Place: Place{Platform: "slack"}, Zone: "Europe/Berlin", Next: utc("2026-10-21 07:00:00")}
	tests := []struct {
		name  string
		edit  func(*Item)
		valid bool
	}{
		{"valid", func(*Item) {}, true},
		{"a schedule", func(it *Item) { it.Kind, it.Spec = KindSchedule, "0 9 * * *" }, true},
		{"no kind", func(it *Item) { it.Kind = "" }, false},
		{"no scope", func(it *Item) { it.Scope = "" }, false},
		{"no owner", func(it *Item) { it.Owner = "" }, false},
		{"no text", func(it *Item) { it.Text = "" }, false},
		{"no platform", func(it *Item) { it.Place.Platform = "" }, false},
		{"no time", func(it *Item) { it.Next = time.Time{} }, false},
		{"no zone", func(it *Item) { it.Zone = "" }, false},
		{"the server's zone", func(it *Item) { it.Zone = "Local" }, false},
		{"unknown zone", func(it *Item) { it.Zone = "Mars/Olympus" }, false},
		{"bad spec", func(it *Item) { it.Spec = "@every 1h" }, false},
		{"bad status", func(it *Item) { it.Status = "sleeping" }, false},
	}
	for _, tt := range tests {
		it := ok
		tt.edit(&it)
		if err := it.Validate(); (err == nil) != tt.valid {
			t.Errorf("%s: Validate = %v, want valid %v", tt.name, err, tt.valid)
		}
	}
}
