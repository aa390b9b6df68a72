package store_test

import (
	"path/filepath"
	"testing"

	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/storetest"
)

var _ storetest.Store = (*store.DB)(nil)

// TestConformance runs the stores' conformance suite against SQLite: each
// test on its own file, in WAL mode, a reopen being another handle on it.
func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Engine{Open: openSQLite, NotFound: store.ErrNotFound})
}

func openSQLite(t *testing.T, o storetest.Options) (storetest.Store, func() storetest.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "parley.db")
	reopen := func() storetest.Store {
		t.Helper()
		return openDB(t, path, store.WithClock(o.Now), store.WithIDs(o.NewID))
	}
	return reopen(), reopen
}
