package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRoundsFor(t *testing.T) {
	tests := []struct {
		name                    string
		f                       footprint
		users, messages, rounds int
	}{
		{"one round", footprint{rounds: 1}, 50, 4, 1},
		{"-rounds", footprint{rounds: 3}, 50, 4, 3},
		{"-turns-total, exact", footprint{rounds: 1, turnsTotal: 1000}, 50, 4, 5},
		{"-turns-total, a partial round is a whole one", footprint{rounds: 1, turnsTotal: 1001}, 50, 4, 6},
		{"-turns-total below one round", footprint{rounds: 1, turnsTotal: 3}, 50, 4, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.roundsFor(tt.users, tt.messages); got != tt.rounds {
				t.Fatalf("roundsFor(%d, %d) = %d, want %d", tt.users, tt.messages, got, tt.rounds)
			}
		})
	}
}

// TestRoundReadings: a checkpoint after each round that reaches the next
// multiple of -mem-every and after the last, a CSV line after every round.
func TestRoundReadings(t *testing.T) {
	tests := []struct {
		name     string
		memEvery int
		csv      bool
		answered []int // after each round
		want     []int // checkpoints' turns
	}{
		{"every 5", 5, true, []int{3, 6, 10, 12, 20}, []int{6, 10, 20}},
		{"a round past two multiples, and the last", 5, false, []int{12, 13}, []int{12, 13}},
		{"the last round's end only", 0, true, []int{3, 6}, []int{6}},
		{"one round", 10000, false, []int{200}, []int{200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &footprint{memEvery: tt.memEvery}
			if tt.csv {
				f.csv = filepath.Join(t.TempDir(), "soak.csv")
			}
			r := f.readings(len(tt.answered), &memorySampler{pid: os.Getpid()}, slog.New(slog.DiscardHandler))
			for round, n := range tt.answered {
				r.afterRound(t.Context(), round, n, round == len(tt.answered)-1)
			}
			var got []int
			for _, c := range r.checkpoints {
				if c.Private <= 0 || c.Resident < c.Private {
					t.Errorf("implausible checkpoint %+v", c)
				}
				got = append(got, c.Turns)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("checkpoints after %v answers, want %v", got, tt.want)
			}
			if !tt.csv {
				return
			}
			data, err := os.ReadFile(f.csv)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			if len(lines) != len(tt.answered) || !strings.HasPrefix(lines[1], "1,6,") || strings.Count(lines[0], ",") != 6 {
				t.Fatalf("csv:\n%s\nwant a line of 7 fields per round, round and turns first", data)
			}
		})
	}
}
