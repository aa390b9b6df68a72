package backoff

import (
	"testing"
	"time"
)

func TestCeiling(t *testing.T) {
	tests := []struct {
		name    string
		p       Policy
		attempt int
		want    time.Duration
	}{
		{"first retry waits the base", Policy{Base: time.Second, Cap: time.Minute}, 0, time.Second},
		{"doubles", Policy{Base: time.Second, Cap: time.Minute}, 3, 8 * time.Second},
		{"capped", Policy{Base: time.Second, Cap: time.Minute}, 6, time.Minute},
		{"capped below the next doubling", Policy{Base: time.Second, Cap: 30 * time.Second}, 5, 30 * time.Second},
		{"far past the cap", Policy{Base: time.Second, Cap: time.Minute}, 1 << 30, time.Minute},
		{"negative attempt is the first", Policy{Base: time.Second, Cap: time.Minute}, -3, time.Second},
		{"base over the cap", Policy{Base: time.Hour, Cap: time.Minute}, 0, time.Minute},
		{"no base, no wait", Policy{Cap: time.Minute}, 4, 0},
		{"no cap stops before overflow", Policy{Base: 1}, 1000, 1 << 62},
		{"half a second base", Policy{Base: 500 * time.Millisecond, Cap: 30 * time.Second}, 4, 8 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Ceiling(tt.attempt); got != tt.want {
				t.Errorf("Ceiling(%d) = %v, want %v", tt.attempt, got, tt.want)
			}
		})
	}
	if d := (Policy{Base: time.Second}).Ceiling(1000); d <= 0 {
		t.Errorf("an uncapped ceiling overflowed to %v", d)
	}
}

// TestDelayBoundsAndJitter: every delay lies within its jitter's bounds,
// and a jittered one really varies (over 2000 draws the chance that it
// stays out of the lowest and highest tenth of its range is nil).
func TestDelayBoundsAndJitter(t *testing.T) {
	const draws = 2000
	tests := []struct {
		name   string
		p      Policy
		lo, hi func(ceiling time.Duration) time.Duration // inclusive bounds
		varies bool
	}{
		{"none", Policy{Base: time.Second, Cap: 30 * time.Second},
			func(c time.Duration) time.Duration { return c }, func(c time.Duration) time.Duration { return c }, false},
		{"equal", Policy{Base: time.Second, Cap: time.Minute, Jitter: Equal},
			func(c time.Duration) time.Duration { return c / 2 }, func(c time.Duration) time.Duration { return c }, true},
		{"full", Policy{Base: time.Second, Cap: 30 * time.Second, Jitter: Full},
			func(time.Duration) time.Duration { return 1 }, func(c time.Duration) time.Duration { return c }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, attempt := range []int{0, 1, 4, 10, 100} {
				c := tt.p.Ceiling(attempt)
				lo, hi := tt.lo(c), tt.hi(c)
				low, high := false, false
				for range draws {
					d := tt.p.Delay(attempt)
					if d < lo || d > hi {
						t.Fatalf("attempt %d: delay %v outside [%v, %v]", attempt, d, lo, hi)
					}
					low = low || d < lo+(hi-lo)/10
					high = high || d > hi-(hi-lo)/10
				}
				if tt.varies && !(low && high) {
					t.Errorf("attempt %d: %d delays never reached both ends of [%v, %v]", attempt, draws, lo, hi)
				}
			}
		})
	}
}

func TestDelayWithoutBase(t *testing.T) {
	for _, j := range []Jitter{NoJitter, Equal, Full} {
		if d := (Policy{Cap: time.Minute, Jitter: j}).Delay(3); d != 0 {
			t.Errorf("jitter %d: delay %v without a base, want 0", j, d)
		}
	}
}
