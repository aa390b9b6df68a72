package postgres

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/parleybot/parley/store/postgres/pgtest"
)

// withStep is the embedded migrations plus one more file.
func withStep(t *testing.T, name, src string) fs.FS {
	t.Helper()
	schema, err := fs.ReadFile(migrations(), "00014_schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	return fstest.MapFS{
		"00014_schema.sql": {Data: schema},
		name:               {Data: []byte(src)},
	}
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
	good := withStep(t, "00015_good.sql", "-- +goose Up\nCREATE TABLE good (x int);\nCREATE TABLE good2 (y int);\n-- +goose Down\nDROP TABLE good;\n")
	if err := migrate(ctx, pool, good); err != nil || version() != 15 {
		t.Fatalf("upgrade to 15: %v, version %d", err, version())
	}
	bad := good.(fstest.MapFS)
	bad["00016_bad.sql"] = &fstest.MapFile{Data: []byte("-- +goose Up\nCREATE TABLE half (x int);\nCREATE TABLE broken (;\n")}
	if err := migrate(ctx, pool, bad); err == nil || !strings.Contains(err.Error(), "00016_bad.sql") {
		t.Fatalf("a broken step: %v, want an error naming it", err)
	}
	var half bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('half') IS NOT NULL`).Scan(&half); err != nil || half || version() != 15 {
		t.Fatalf("after the failed step: table half %t (%v), version %d; want none, 15", half, err, version())
	}
}
