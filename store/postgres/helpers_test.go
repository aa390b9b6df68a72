package postgres_test

import (
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleybot/parley/store/postgres"
	"github.com/parleybot/parley/store/postgres/pgtest"
)

// epoch is where test clocks start.
var epoch = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// tickingClock returns a clock that starts at epoch and moves one second
// forward on every reading, so that successive writes get distinct times.
func tickingClock() func() time.Time {
	var n atomic.Int64
	return func() time.Time { return epoch.Add(time.Duration(n.Add(1)-1) * time.Second) }
}

// openDB opens the database at url and closes it when the test ends.
func openDB(t testing.TB, url string, opts ...postgres.Option) *postgres.DB {
	t.Helper()
	quiet := postgres.WithLogger(slog.New(slog.DiscardHandler))
	db, err := postgres.Open(t.Context(), url, append([]postgres.Option{quiet}, opts...)...)
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

// newDB opens a fresh database of its own. Tests run in parallel.
func newDB(t testing.TB, opts ...postgres.Option) *postgres.DB {
	t.Helper()
	return openDB(t, pgtest.NewDatabase(t), opts...)
}
