package percentile

import (
	"testing"
	"time"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestNearest(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = ms(i + 1)
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one value is every percentile", []time.Duration{ms(7)}, 99, ms(7)},
		{"p0 is the minimum", []time.Duration{ms(1), ms(2)}, 0, ms(1)},
		{"p50 of two is the lower", []time.Duration{ms(1), ms(2)}, 50, ms(1)},
		{"p51 of two is the upper", []time.Duration{ms(1), ms(2)}, 51, ms(2)},
		{"p100 is the maximum", []time.Duration{ms(1), ms(2), ms(3)}, 100, ms(3)},
		{"p50 of 1..100", hundred, 50, ms(50)},
		{"p90 of 1..100", hundred, 90, ms(90)},
		{"p99 of 1..100", hundred, 99, ms(99)},
		{"p99 of ten is the maximum", hundred[:10], 99, ms(10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Nearest(tt.sorted, tt.p); got != tt.want {
				t.Fatalf("Nearest(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}

// TestNearestCounted: the same as Nearest over the values spelt out.
func TestNearestCounted(t *testing.T) {
	for _, counts := range [][]Counted{
		nil,
		{{ms(5), 0}},
		{{ms(5), 1}},
		{{ms(1), 3}, {ms(2), 0}, {ms(9), 1}},
		{{ms(10), 50}, {ms(20), 45}, {ms(30), 5}},
		{{ms(10), 50}, {ms(20), 44}, {ms(30), 6}},
		{{ms(1), 1}, {ms(2), 1}, {ms(3), 1}, {ms(4), 1}, {ms(5), 1}, {ms(6), 1}, {ms(7), 1}},
	} {
		var spelt []time.Duration
		for _, c := range counts {
			for range c.N {
				spelt = append(spelt, c.Value)
			}
		}
		for _, p := range []float64{0, 1, 50, 90, 94, 95, 96, 99, 100} {
			if got, want := NearestCounted(counts, p), Nearest(spelt, p); got != want {
				t.Errorf("NearestCounted(%v, %v) = %v, want %v", counts, p, got, want)
			}
		}
	}
}
