package postgres

import (
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/postgres/pgtest"
)

// withStep is the embedded migrations plus one more file.
func withStep(t *testing.T, name, src string) fs.FS {
	t.Helper()
	out := migrationsBefore(t, "99999")
	out[name] = &fstest.MapFile{Data: []byte(src)}
	return out
}

// TestMigrateUpgradeAndFailure: a later step applies on top of the
// schema; a failing one leaves the database as it was (DDL included),
// at a version this build knows.
func TestMigrateUpgradeAndFailure(t *testing.T) {
	t.Parallel()
	pool, err := pgxpool.New(t.Context(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx := t.Context()
	version := func() (v int64) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT max(version_id) FROM goose_db_version`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if err := migrate(ctx, pool, migrations()); err != nil {
		t.Fatal(err)
	}
	// The steps after the newest this build has, whatever that is.
	latest := version()
	goodName, badName := fmt.Sprintf("%05d_good.sql", latest+1), fmt.Sprintf("%05d_bad.sql", latest+2)
	good := withStep(t, goodName, "-- +goose Up\nCREATE TABLE good (x int);\nCREATE TABLE good2 (y int);\n-- +goose Down\nDROP TABLE good;\n")
	if err := migrate(ctx, pool, good); err != nil || version() != latest+1 {
		t.Fatalf("upgrade to %d: %v, version %d", latest+1, err, version())
	}
	bad := good.(fstest.MapFS)
	bad[badName] = &fstest.MapFile{Data: []byte("-- +goose Up\nCREATE TABLE half (x int);\nCREATE TABLE broken (;\n")}
	if err := migrate(ctx, pool, bad); err == nil || !strings.Contains(err.Error(), badName) {
		t.Fatalf("a broken step: %v, want an error naming it", err)
	}
	var half bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('half') IS NOT NULL`).Scan(&half); err != nil || half || version() != latest+1 {
		t.Fatalf("after the failed step: table half %t (%v), version %d; want none, %d", half, err, version(), latest+1)
	}
}

// TestMessageIndexUpgrade: messages stored before migration 00020 are
// found once the database is opened with it; tool results are not.
func TestMessageIndexUpgrade(t *testing.T) {
	ctx := t.Context()
	url := pgtest.NewDatabase(t)
	before := migrationsBefore(t, "00020")
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := migrate(ctx, pool, before); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO sessions (id, platform, created_at, updated_at) VALUES ('s1', 'slack', now(), now())`); err != nil {
		t.Fatal(err)
	}
	for i := range indexBatch + 2 {
		role, body := "tool", `{"role":"tool","text":"filler"}`
		switch i {
		case indexBatch:
			role, body = "user", `{"role":"user","text":"the old question about 设备"}`
		case indexBatch + 1:
			role, body = "assistant", `{"role":"assistant","text":"the old answer"}`
		}
		if _, err := pool.Exec(ctx, `INSERT INTO messages (session_id, role, body, created_at) VALUES ('s1', $1, $2, now())`, role, body); err != nil {
			t.Fatal(err)
		}
	}
	db, err := Open(ctx, url, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	expectHits(t, db, map[string]int{"old": 2, "设备": 1, "filler": 0})
	var queued int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM message_index_todo`).Scan(&queued); err != nil || queued != 0 {
		t.Errorf("%d messages still queued, %v", queued, err)
	}
}

// migrationsBefore are the embedded migrations whose names sort before
// version.
func migrationsBefore(t *testing.T, version string) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	err := fs.WalkDir(migrations(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path >= version {
			return err
		}
		data, err := fs.ReadFile(migrations(), path)
		out[path] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// expectHits checks how many messages each query finds.
func expectHits(t *testing.T, db *DB, want map[string]int) {
	t.Helper()
	for query, n := range want {
		hits, err := db.SearchMessages(t.Context(), store.MessageSearch{Query: query})
		if err != nil || len(hits) != n {
			t.Errorf("%q finds %d (%v), want %d", query, len(hits), err, n)
		}
	}
}
