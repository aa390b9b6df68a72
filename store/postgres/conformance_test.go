package postgres_test

import (
	"testing"

	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/postgres"
	"github.com/parleybot/parley/store/postgres/pgtest"
	"github.com/parleybot/parley/store/storetest"
)

var _ storetest.Store = (*postgres.DB)(nil)

// TestConformance runs the stores' conformance suite against PostgreSQL:
// each test in a database of its own, a reopen being another pool on it —
// another process, as far as the database can tell. Without
// PARLEY_TEST_POSTGRES_URL it skips (fails under CI).
func TestConformance(t *testing.T) {
	pgtest.URL(t)
	storetest.Run(t, storetest.Engine{Open: openPostgres, NotFound: store.ErrNotFound})
}

func openPostgres(t *testing.T, o storetest.Options) (storetest.Store, func() storetest.Store) {
	t.Helper()
	url := pgtest.NewDatabase(t)
	reopen := func() storetest.Store {
		t.Helper()
		return openDB(t, url, postgres.WithClock(o.Now), postgres.WithIDs(o.NewID))
	}
	return reopen(), reopen
}
