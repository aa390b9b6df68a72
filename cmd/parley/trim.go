package main

import (
	"context"
	"log/slog"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/parleybot/parley/internal/clock"
)

// The Go runtime keeps the heap it grew to for a busy spell: it returns
// free pages only down to its next goal, and that goal is recomputed at
// the next collection, which an idle process runs every two minutes. After
// 200 turns in 50 chats that held ~1.5 MiB of private memory for minutes
// (docs/footprint.md). trimmer hands it back once Parley goes quiet:
// one forced collection per busy spell, none while busy or idle. It looks
// often, so memory is back within a second of the last answer: a look
// costs one runtime/metrics read.
type trimmer struct {
	every time.Duration // how often to look
	quiet uint64        // allocated since the last look, below which Parley is quiet
	sleep func(context.Context, time.Duration) error
	// allocated is the heap allocated since start, in bytes.
	allocated func() uint64
	trim      func(context.Context)
	// settled runs once, before the first trim or at look settleBy,
	// whichever comes first: start-up is over.
	settled  func()
	settleBy int
}

// Defaults: a turn allocates ~200 KiB, an idle Parley (long polls,
// sweeps) a few KiB a minute; a quarter second of either tells them apart.
const (
	trimEvery = 250 * time.Millisecond
	trimQuiet = 16 << 10
)

// trimSettleBy is the look by which start-up counts as over even if
// Parley has not been quiet since: one restarted into a backlog must not
// run on without collections (holdGC) for as long as the backlog lasts.
const trimSettleBy = 8 // 2 s

// memoryReleaser is a store that can hand back what it caches while
// Parley is quiet (SQLite's page caches: store.DB).
type memoryReleaser interface {
	ReleaseMemory(ctx context.Context) error
}

// idleCloser closes idle connections (modelClients: those to model
// servers over plain HTTP).
type idleCloser interface {
	CloseIdleConnections()
}

// newTrimmer trims the Go heap and, when db is a memoryReleaser, the
// store's caches first, so that what they free is returned with the rest;
// idle's connections are closed with them (nil: none).
func newTrimmer(db any, idle idleCloser, logger *slog.Logger) trimmer {
	r, _ := db.(memoryReleaser)
	trim := func(ctx context.Context) {
		if r != nil {
			if err := r.ReleaseMemory(ctx); err != nil && ctx.Err() == nil {
				logger.Debug("trim", "err", err)
			}
		}
		if idle != nil {
			idle.CloseIdleConnections()
		}
		debug.FreeOSMemory()
	}
	return trimmer{
		every:     trimEvery,
		quiet:     trimQuiet,
		sleep:     clock.Sleep,
		allocated: heapAllocated,
		trim:      trim,
		// Start-up runs without collections (holdGC) and only the steady
		// state at gcPercent: set from the start, it had the collector run
		// two or three times while the packages and the app were being
		// built, which a first start pays in milliseconds (gc.go).
		settled:  func() { tuneGC(os.LookupEnv) },
		settleBy: trimSettleBy,
	}
}

// run trims after start-up and after every busy spell, until ctx ends.
func (t trimmer) run(ctx context.Context) {
	last := t.allocated()
	busy := true // start-up allocated what it will not keep
	for look := 1; t.sleep(ctx, t.every) == nil; look++ {
		if look == t.settleBy && t.settled != nil {
			t.settled()
			t.settled = nil
		}
		now := t.allocated()
		quiet := now-last < t.quiet
		last = now
		switch {
		case !quiet:
			busy = true
		case busy:
			if t.settled != nil {
				t.settled()
				t.settled = nil
			}
			t.trim(ctx) // allocates far less than quiet: not work
			busy = false
		}
	}
}

// heapAllocated reads the heap's cumulative allocations without stopping
// the world (runtime.ReadMemStats would).
func heapAllocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
