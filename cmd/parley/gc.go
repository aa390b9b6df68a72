package main

import "runtime/debug"

// gcPercent is the collector's target growth between collections unless
// GOGC is set. Parley's live heap is small (2–4 MiB) and its turns
// allocate ~200 KiB each, mostly in the provider SDK: at Go's default of
// 100 the heap doubles between collections, which at 50 chats is ~2 MiB of
// private memory; 50 keeps it, for ~10 % more CPU per turn (measured with
// parley-load, docs/footprint.md). Operators who prefer the CPU set GOGC,
// and GOMEMLIMIT still applies.
const gcPercent = 50

// tuneGC applies gcPercent unless the environment chose. The trimmer
// calls it once start-up has settled (trim.go); commands that end soon
// keep Go's default.
func tuneGC(lookupEnv func(string) (string, bool)) {
	if _, set := lookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
}
