package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/postgres"
	"github.com/parleybot/parley/store/postgres/pgtest"
)

func TestOpenMigratesOnceAndReopens(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	// Replicas starting together: the advisory lock lets one migrate and
	// the others find the schema done.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			db, err := postgres.Open(t.Context(), url)
			if err == nil {
				db.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
	}
	db := openDB(t, url)
	if err := db.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	if v := db.Vectors(); v.PgvectorAvailable {
		t.Logf("this server has pgvector: %s", v)
	}
	conn := rawConn(t, url)
	var n, max int64
	if err := conn.QueryRow(t.Context(), `SELECT count(*), max(version_id) FROM goose_db_version WHERE version_id > 0`).Scan(&n, &max); err != nil {
		t.Fatal(err)
	}
	files, err := fs.Glob(postgres.Migrations(), "*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("the build's migrations: %q, %v", files, err)
	}
	var newest int64
	if _, err := fmt.Sscanf(files[len(files)-1], "%05d_", &newest); err != nil {
		t.Fatal(err)
	}
	if n != int64(len(files)) || max != newest {
		t.Fatalf("goose_db_version: %d rows, version %d; want one row per migration (%q), %d", n, max, files, newest)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	openDB(t, url)
	if _, err := rawConn(t, url).Exec(t.Context(), `INSERT INTO goose_db_version (version_id, is_applied) VALUES (99, true)`); err != nil {
		t.Fatal(err)
	}
	_, err := postgres.Open(t.Context(), url)
	if !errors.Is(err, store.ErrTooNew) {
		t.Fatalf("Open after a newer build migrated = %v, want ErrTooNew", err)
	}
}

func TestOpenBadURL(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := postgres.Open(ctx, "postgres://nobody@127.0.0.1:1/none?connect_timeout=1"); err == nil {
		t.Fatal("Open of an unreachable server succeeded")
	}
}

// rawConn connects to url directly, to look at the database behind the
// store's back.
func rawConn(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
