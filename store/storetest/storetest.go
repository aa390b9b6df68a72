// Package storetest is the conformance suite of Parley's stores: the
// behaviour every storage engine (store, on SQLite; store/postgres) must
// show through the interfaces bot and agent declare. An engine's test runs
// it with an Engine that opens fresh databases:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, storetest.Engine{Open: open, NotFound: store.ErrNotFound})
//	}
//
// The tests use only what both engines offer: no file paths, no pool
// statistics, no SQL. What only one engine can show (migrations, file
// errors, SQLite's exact ranking) stays in that engine's own tests.
package storetest

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleybot/parley/bot/metrics"
	"github.com/parleybot/parley/store"
)

// Store is what a storage engine offers, whatever it runs on: the
// engine's Backend and the operator endpoints' interfaces. A test may close
// a handle before the opener does (a restart, a crash), so a second Close
// must be harmless.
type Store interface {
	store.Backend
	metrics.Counts
	metrics.Pinger
}

// Options are what a test sets on the database it opens. Run always sets
// both; they are called from many goroutines at once.
type Options struct {
	// Now stamps created_at, updated_at and the like.
	Now func() time.Time
	// NewID makes session ids.
	NewID func() string
}

// Opener opens a fresh, empty, migrated database with opts, and returns a
// handle on it and reopen, which opens another handle on the same database
// with the same opts: a restart of the process, or a second process beside
// the first. The opener closes every handle in t.Cleanup.
type Opener func(t *testing.T, opts Options) (s Store, reopen func() Store)

// Engine is a storage engine under test.
type Engine struct {
	Open Opener
	// NotFound is the sentinel the engine's errors for a missing record
	// wrap (store.ErrNotFound).
	NotFound error
}

// Run runs the conformance suite against e, one subtest per area and
// behaviour, in parallel: each test opens its own database.
func Run(t *testing.T, e Engine) {
	if e.Open == nil || e.NotFound == nil {
		t.Fatal("storetest: Engine needs Open and NotFound")
	}
	for _, a := range areas {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range a.tests {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					tc.run(t, suite{e})
				})
			}
		})
	}
}

// area is a group of tests: one part of the store.
type area struct {
	name  string
	tests []test
}

type test struct {
	name string
	run  func(t *testing.T, s suite)
}

// areas are the suite's tests; each area's file lists its own.
var areas = []area{
	{"Inbox", inboxTests},
	{"Sessions", sessionTests},
	{"Transcript", transcriptTests},
	{"Conversations", conversationTests},
	{"Search", searchTests},
	{"SessionFiles", fileTests},
	{"Outbox", outboxTests},
	{"Approvals", approvalTests},
	{"Reminders", remindTests},
	{"Operator", opsTests},
	{"Memory", memoryTests},
	{"TeamNotes", teamTests},
	{"Skills", skillTests},
	{"Users", userTests},
	{"KV", kvTests},
	{"Tasks", taskTests},
	{"Learning", learningTests},
	{"KnowledgeBase", kbTests},
	{"KnowledgeBaseSync", kbSyncTests},
	{"KnowledgeBaseHybrid", hybridTests},
	{"Scopes", scopeTests},
	{"Leases", leaseTests},
	{"Costs", costTests},
	{"Console", consoleTests},
	{"Audit", auditTests},
	{"Turns", turnTests},
	{"History", historyTests},
}

// suite is what a test has in hand: the engine.
type suite struct{ e Engine }

// open opens a fresh database with opts, filling in a ticking clock and
// sequential ids where opts has none.
func (s suite) open(t *testing.T, opts Options) (Store, func() Store) {
	t.Helper()
	if opts.Now == nil {
		opts.Now = tickingClock()
	}
	if opts.NewID == nil {
		opts.NewID = sequentialIDs()
	}
	return s.e.Open(t, opts)
}

// fresh opens a fresh database with the default options.
func (s suite) fresh(t *testing.T) Store {
	t.Helper()
	db, _ := s.open(t, Options{})
	return db
}

// notFound reports whether err wraps the engine's not-found sentinel.
func (s suite) notFound(err error) bool { return errors.Is(err, s.e.NotFound) }

// closeNow closes db before the test ends, as a restart or a crash would.
func closeNow(t *testing.T, db Store) {
	t.Helper()
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// epoch is where test clocks start.
var epoch = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// tickingClock returns a clock that starts at epoch and moves one second
// forward on every reading, so that successive writes get distinct times.
func tickingClock() func() time.Time {
	var n atomic.Int64
	return func() time.Time { return epoch.Add(time.Duration(n.Add(1)-1) * time.Second) }
}

// clock is a clock a test sets.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock {
	c := new(clock)
	c.Set(t)
	return c
}

func (c *clock) Now() time.Time  { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) Set(t time.Time) { c.ns.Store(t.UnixNano()) }

// sequentialIDs returns a session id generator yielding s1, s2, ...
func sequentialIDs() func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("s%d", n.Add(1)) }
}
