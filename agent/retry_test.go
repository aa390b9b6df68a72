package agent

import (
	"testing"
	"time"
)

func TestRetryWait(t *testing.T) {
	p := RetryPolicy{}.withDefaults()
	if d, ok := p.wait(1, 2*time.Second); !ok || d != 2*time.Second {
		t.Fatalf("Retry-After 2s: got %s %v, want it honoured exactly", d, ok)
	}
	if _, ok := p.wait(1, time.Minute); ok {
		t.Fatal("Retry-After beyond the cap must not be waited for")
	}
	for attempt := 1; attempt <= 40; attempt++ {
		ceiling := min(p.Base<<min(attempt-1, 20), p.Cap)
		for range 50 {
			d, ok := p.wait(attempt, 0)
			if !ok || d <= 0 || d > ceiling {
				t.Fatalf("attempt %d: wait %s outside (0, %s]", attempt, d, ceiling)
			}
		}
	}
}
