package bot

import (
	"testing"
	"time"
)

func TestLatencyBucket(t *testing.T) {
	for _, tc := range []struct {
		in, want time.Duration
	}{
		{0, 0},
		{-time.Second, 0},
		{time.Nanosecond, time.Millisecond},
		{time.Millisecond, time.Millisecond},
		{87 * time.Millisecond, 87 * time.Millisecond},
		{99*time.Millisecond + 1, 100 * time.Millisecond},
		{100 * time.Millisecond, 100 * time.Millisecond},
		{101 * time.Millisecond, 110 * time.Millisecond},
		{405 * time.Millisecond, 410 * time.Millisecond},
		{990 * time.Millisecond, 990 * time.Millisecond},
		{991 * time.Millisecond, time.Second},
		{1201 * time.Millisecond, 1300 * time.Millisecond},
		{21500 * time.Millisecond, 22 * time.Second},
		{10 * time.Minute, 10 * time.Minute},
	} {
		if got := LatencyBucket(tc.in); got != tc.want {
			t.Errorf("LatencyBucket(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func FuzzLatencyBucket(f *testing.F) {
	for _, d := range []int64{0, 1, 999_999, 1_000_000, 87_654_321, 599_999_999_999} {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, n int64) {
		d := time.Duration(n)
		if d > 1000*time.Hour {
			return // beyond any latency a turn may have
		}
		b := LatencyBucket(d)
		if d <= 0 {
			if b != 0 {
				t.Fatalf("LatencyBucket(%v) = %v, want 0", d, b)
			}
			return
		}
		// Never below, at most 10 % (or the one millisecond) above, and a
		// bucket is its own bucket.
		if b < d || (b > d*11/10 && b-d >= time.Millisecond) || LatencyBucket(b) != b || b%time.Millisecond != 0 {
			t.Fatalf("LatencyBucket(%v) = %v", d, b)
		}
	})
}
