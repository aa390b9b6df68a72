package store_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// epoch is where test clocks start.
var epoch = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// tickingClock returns a clock that starts at epoch and moves one second
// forward on every reading, so that successive writes get distinct times.
func tickingClock() func() time.Time {
	var n atomic.Int64
	return func() time.Time { return epoch.Add(time.Duration(n.Add(1)-1) * time.Second) }
}

// sequentialIDs returns a session id generator yielding s1, s2, ...
func sequentialIDs() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("s%d", n)
	}
}

// dbPath returns the path of a fresh database file in a test directory.
func dbPath(t testing.TB) string {
	return filepath.Join(t.TempDir(), "parley.db")
}

// openDB opens a database at path and closes it when the test ends.
func openDB(t testing.TB, path string, opts ...store.Option) *store.DB {
	t.Helper()
	db, err := store.Open(t.Context(), path, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

// newDB opens a fresh database in a test directory.
func newDB(t testing.TB, opts ...store.Option) *store.DB {
	t.Helper()
	return openDB(t, dbPath(t), opts...)
}

// slackThread is a conversation to bind sessions to.
var slackThread = chat.Thread{Platform: "slack", Space: "T01", Chat: "C01", ID: "1700000000.000100"}

// add is the memory tool's edit that appends entry.
func add(entry string) func([]string) ([]string, error) {
	return func(es []string) ([]string, error) { return append(es, entry), nil }
}
