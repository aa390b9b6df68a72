package store

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// TestMigrateFailureKeepsVersion: pending migrations apply together, so a
// failing one leaves the database as it was, at a version this and older
// builds know.
func TestMigrateFailureKeepsVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	before, rows := schemaVersion(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	fsys := withMigration(t, "00998_good.sql", "-- +goose Up\nCREATE TABLE good (x INTEGER);\n").(fstest.MapFS)
	fsys["00999_bad.sql"] = &fstest.MapFile{Data: []byte("-- +goose Up\nCREATE TABLE broken (;\n")}
	if _, err := open(t.Context(), path, fsys); err == nil || !strings.Contains(err.Error(), "00999_bad.sql") {
		t.Fatalf("open with a broken migration: %v, want an error naming it", err)
	}

	db, err = Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, n := schemaVersion(t, db); v != before || n != rows {
		t.Errorf("after the failed upgrade: version %d with %d rows, want %d with %d", v, n, before, rows)
	}
	var n int
	if err := db.r.QueryRowContext(t.Context(), `SELECT count(*) FROM sqlite_schema WHERE name = 'good'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("the good step of the failed upgrade stayed: %d tables, %v", n, err)
	}
}

func TestUpSection(t *testing.T) {
	tests := []struct {
		name, src, want string
		wantErr         bool
	}{
		{"up and down", "-- header\n-- +goose Up\nCREATE TABLE a (x);\n-- +goose Down\nDROP TABLE a;\n", "CREATE TABLE a (x);\n", false},
		{"statement block", "-- +goose Up\n-- +goose StatementBegin\nCREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1; END;\n-- +goose StatementEnd\n",
			"CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1; END;\n", false},
		{"no up", "CREATE TABLE a (x);\n", "", true},
		{"no transaction", "-- +goose NO TRANSACTION\n-- +goose Up\nVACUUM;\n", "", true},
		{"env substitution", "-- +goose ENVSUB ON\n-- +goose Up\nSELECT '${X}';\n", "", true},
	}
	for _, tt := range tests {
		got, err := upSection(tt.src)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%s: upSection = %q, %v; want %q, error %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestVersionTableIsGooses: earlier builds ran goose; the table and its
// rows must stay what goose reads and writes, both ways.
func TestVersionTableIsGooses(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var first, applied int64
	err = db.r.QueryRowContext(t.Context(),
		`SELECT (SELECT version_id FROM goose_db_version ORDER BY id LIMIT 1), min(is_applied) FROM goose_db_version`).Scan(&first, &applied)
	if err != nil || first != 0 || applied != 1 {
		t.Errorf("goose_db_version: first row version %d, min(is_applied) %d, %v; want the version 0 row and every row applied", first, applied, err)
	}
	cols, err := db.r.QueryContext(t.Context(), `SELECT name FROM pragma_table_info('goose_db_version') ORDER BY cid`)
	if err != nil {
		t.Fatal(err)
	}
	defer cols.Close()
	var names []string
	for cols.Next() {
		var n string
		if err := cols.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if strings.Join(names, ",") != "id,version_id,is_applied,tstamp" {
		t.Errorf("goose_db_version columns %v", names)
	}
}
