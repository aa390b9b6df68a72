package main

import (
	"math"
	"runtime/debug"
)

// gcPercent is the collector's target growth between collections unless
// GOGC is set. Parley's live heap is small (2–4 MiB) and its turns
// allocate ~200 KiB each, mostly in the provider SDK: at Go's default of
// 100 the heap doubles between collections, which at 50 chats is ~2 MiB of
// private memory; 50 keeps it, for ~10 % more CPU per turn (measured with
// parley-load, docs/footprint.md). Operators who prefer the CPU set GOGC,
// and GOMEMLIMIT still applies.
const gcPercent = 50

// startLimit bounds the heap while start-up runs without collections
// (holdGC): a first start allocates ~6 MiB it mostly does not keep, and an
// upgrade that re-indexes a large database far more, which the collector
// then collects at this bound.
const startLimit = 32 << 20

// holdGC turns the collector off for start-up, up to startLimit, unless
// GOGC or GOMEMLIMIT is set. The collections it saves ran while the store
// opened and the app was built, 2–3 ms of a first poll's ~25
// (docs/footprint.md). tuneGC, once start-up has settled, turns it on.
func holdGC(lookupEnv func(string) (string, bool)) {
	if envSet(lookupEnv, "GOGC") || envSet(lookupEnv, "GOMEMLIMIT") {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(startLimit)
}

// tuneGC applies gcPercent unless the environment chose, and lifts
// holdGC's bound. The trimmer calls it once start-up has settled
// (trim.go); commands that end soon keep Go's default.
func tuneGC(lookupEnv func(string) (string, bool)) {
	if !envSet(lookupEnv, "GOGC") {
		debug.SetGCPercent(gcPercent)
	}
	if !envSet(lookupEnv, "GOMEMLIMIT") {
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

func envSet(lookupEnv func(string) (string, bool), key string) bool {
	_, set := lookupEnv(key)
	return set
}
