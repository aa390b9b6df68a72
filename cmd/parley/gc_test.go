package main

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestGCHeldThenTuned(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	unset := func(string) (string, bool) { return "", false }
	only := func(key string) func(string) (string, bool) {
		return func(k string) (string, bool) { return "200", k == key }
	}
	tests := []struct {
		name            string
		env             func(string) (string, bool)
		heldPercent     int
		heldLimit       int64
		tunedPercent    int
		tunedLimitIsMax bool
	}{
		{"nothing set", unset, -1, startLimit, gcPercent, true},
		{"GOGC set", only("GOGC"), 100, math.MaxInt64, 100, true},
		{"GOMEMLIMIT set", only("GOMEMLIMIT"), 100, 64 << 20, gcPercent, false},
	}
	for _, tt := range tests {
		debug.SetGCPercent(100)
		limit := int64(math.MaxInt64)
		if tt.name == "GOMEMLIMIT set" {
			limit = 64 << 20 // as the runtime read it from the environment
		}
		debug.SetMemoryLimit(limit)

		holdGC(tt.env)
		if got := gcPercentNow(); got != tt.heldPercent {
			t.Errorf("%s: held GC percent %d, want %d", tt.name, got, tt.heldPercent)
		}
		if got := debug.SetMemoryLimit(-1); got != tt.heldLimit {
			t.Errorf("%s: held memory limit %d, want %d", tt.name, got, tt.heldLimit)
		}
		tuneGC(tt.env)
		if got := gcPercentNow(); got != tt.tunedPercent {
			t.Errorf("%s: tuned GC percent %d, want %d", tt.name, got, tt.tunedPercent)
		}
		if got := debug.SetMemoryLimit(-1); (got == math.MaxInt64) != tt.tunedLimitIsMax {
			t.Errorf("%s: tuned memory limit %d", tt.name, got)
		}
	}
}

func gcPercentNow() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}
