package store

import (
	"bytes"
	"compress/gzip"
	"database/sql"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
)

var updateImage = flag.Bool("update", false, "make store/fresh.db.gz again from the migrations")

// TestFreshImage: the image a new database starts as (fresh.db.gz) is what
// the migrations build — the same tables, indexes and triggers, the same
// migration records, no FTS5 table (Open adds those the build can have) —
// and in WAL mode. After a migration is added, -update makes it again.
func TestFreshImage(t *testing.T) {
	built := filepath.Join(t.TempDir(), "built.db")
	if err := buildFresh(t.Context(), built, migrations(), false); err != nil {
		t.Fatal(err)
	}
	if *updateImage {
		b, err := os.ReadFile(built)
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("fresh.db.gz", z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("fresh.db.gz made again: %d bytes, %d inflated", z.Len(), len(b))
		return
	}
	copied := filepath.Join(t.TempDir(), "copied.db")
	if err := createFresh(t.Context(), copied, nil, freshImage); err != nil {
		t.Fatal(err)
	}
	want, got := schemaOf(t, built), schemaOf(t, copied)
	if !slices.Equal(got, want) {
		for _, line := range want {
			if !slices.Contains(got, line) {
				t.Errorf("missing from fresh.db.gz: %s", line)
			}
		}
		for _, line := range got {
			if !slices.Contains(want, line) {
				t.Errorf("in fresh.db.gz, not built by the migrations: %s", line)
			}
		}
		t.Fatal("store/fresh.db.gz is not what the migrations build: go test ./store -run TestFreshImage -args -update")
	}
	f, err := os.Open(copied)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	header := make([]byte, 20)
	if _, err := f.ReadAt(header, 0); err != nil || header[18] != 2 || header[19] != 2 {
		t.Errorf("fresh.db.gz's file format bytes %v (%v): want WAL (2, 2)", header[18:20], err)
	}
}

// schemaOf is a database's schema and migration records, one line each.
func schemaOf(t *testing.T, path string) []string {
	t.Helper()
	db, err := sql.Open(driverName, "file:"+escapePath(path)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var lines []string
	collect := func(query string) {
		rows, err := db.QueryContext(t.Context(), query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, line)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	collect(`SELECT type || ' ' || name || ' ' || tbl_name || ': ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name`)
	collect(`SELECT 'migration ' || version_id || ' ' || is_applied FROM goose_db_version ORDER BY id`)
	collect(`SELECT 'user_version ' || user_version FROM pragma_user_version`)
	return lines
}

// TestFreshImageBehind: a database started from an image older than the
// migrations gets the newer ones when it opens, and its FTS5 indexes.
func TestFreshImageBehind(t *testing.T) {
	old := filepath.Join(t.TempDir(), "old.db")
	if err := buildFresh(t.Context(), old, migrationsBefore(t, "00029"), false); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b)
	w.Close()
	path := filepath.Join(t.TempDir(), "parley.db")
	db, err := open(t.Context(), path, migrations(), func(c *config) { c.image = z.String() })
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version int64
	if err := db.w.QueryRowContext(t.Context(), "SELECT max(version_id) FROM goose_db_version").Scan(&version); err != nil || version != latestVersion(t) {
		t.Errorf("schema version %d (%v), want %d", version, err, latestVersion(t))
	}
	want := 2 // kb_fts and msg_fts
	if db.KeywordIndex() != nil {
		want = 0 // a build without FTS5
	}
	var indexes int
	if err := db.w.QueryRowContext(t.Context(), `SELECT count(*) FROM sqlite_schema WHERE name IN ('kb_fts', 'msg_fts')`).Scan(&indexes); err != nil || indexes != want {
		t.Errorf("FTS5 tables: %d (%v), want %d", indexes, err, want)
	}
}

// migrationsBefore are the embedded migrations older than version.
func migrationsBefore(t *testing.T, version string) fs.FS {
	t.Helper()
	fsys := fstest.MapFS{}
	entries, err := fs.ReadDir(migrations(), ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() >= version {
			continue
		}
		data, err := fs.ReadFile(migrations(), e.Name())
		if err != nil {
			t.Fatal(err)
		}
		fsys[e.Name()] = &fstest.MapFile{Data: data}
	}
	return fsys
}
