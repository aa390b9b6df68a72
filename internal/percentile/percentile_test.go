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
