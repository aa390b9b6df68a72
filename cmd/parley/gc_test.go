package main

import (
	"runtime/debug"
	"testing"
)

func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	tuneGC(func(string) (string, bool) { return "", false })
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("GOGC unset: GC percent %d, want %d", got, gcPercent)
	}
	tuneGC(func(k string) (string, bool) { return "200", k == "GOGC" })
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set: GC percent changed to %d", got)
	}
}
