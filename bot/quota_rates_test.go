package bot

import (
	"fmt"
	"github.com/parleybot/parley/chat"
	"testing"
	"time"
)

// TestRatesKeepRecentPeople: the per-person rate limiters are those of
// the people who wrote in the last minutes, however many wrote before.
func TestRatesKeepRecentPeople(t *testing.T) {
	tests := []struct {
		name      string
		perMinute int // new people a minute, each sending burst messages
		burst     int // messages each sends, at once
		minutes   int
		most      int // limiters held at most
	}{
		{name: "200 new people a minute for an hour", perMinute: 200, burst: 10, minutes: 60, most: 400},
		{name: "a person a minute for a day", perMinute: 1, burst: 1, minutes: 24 * 60, most: 2},
		{name: "5,000 new people a minute", perMinute: 5000, burst: 1, minutes: 3, most: 5001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			lim := Limits{TurnsPerMinute: 10}
			q := newQuotas(lim, false, Access{}, nil, func() time.Time { return now })
			most, person := 0, 0
			for range tt.minutes {
				for range tt.perMinute {
					u := chat.User{Platform: "discord", ID: fmt.Sprint(person)}
					person++
					for range tt.burst {
						if _, err := q.admit(t.Context(), u, lim, DefaultAgent); err != nil {
							t.Fatal(err)
						}
					}
					most = max(most, len(q.rates))
				}
				now = now.Add(time.Minute)
			}
			if most > tt.most {
				t.Errorf("%d limiters held after %d people, want ≤ %d", most, person, tt.most)
			}
		})
	}
}
