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
	"strings"
	"testing"
	"testing/fstest"
)

var updateImage = flag.Bool("update", false, "make store/fresh.db.gz and fresh_fts5.db.gz again from the migrations")

// TestFreshImage: the images a new database starts as are what the
// migrations build — the same tables, indexes and triggers, the same
// migration records, in WAL mode — fresh.db.gz without FTS5 tables (for a
// build without FTS5) and fresh_fts5.db.gz with them; the build embeds the
// one it can use. After a migration is added, -update makes them again.
func TestFreshImage(t *testing.T) {
	for _, tc := range []struct {
		file    string
		indexes bool
	}{
		{"fresh.db.gz", false},
		{"fresh_fts5.db.gz", true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			built := filepath.Join(t.TempDir(), "built.db")
			if err := buildFresh(t.Context(), built, migrations(), tc.indexes); err != nil {
				t.Fatal(err)
			}
			want := schemaOf(t, built)
			if tc.indexes && !slices.ContainsFunc(want, func(l string) bool { return strings.HasPrefix(l, "table kb_fts ") }) {
				t.Skip("this build has no FTS5: build with -tags sqlite_fts5 to check or make " + tc.file)
			}
			if *updateImage {
				writeImage(t, built, tc.file)
				return
			}
			image, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			copied := filepath.Join(t.TempDir(), "copied.db")
			if _, err := createFresh(t.Context(), copied, nil, string(image)); err != nil {
				t.Fatal(err)
			}
			if got := schemaOf(t, copied); !slices.Equal(got, want) {
				for _, line := range want {
					if !slices.Contains(got, line) {
						t.Errorf("missing from %s: %s", tc.file, line)
					}
				}
				for _, line := range got {
					if !slices.Contains(want, line) {
						t.Errorf("in %s, not built by the migrations: %s", tc.file, line)
					}
				}
				t.Fatalf("store/%s is not what the migrations build: go test -tags sqlite_fts5 ./store -run TestFreshImage -args -update", tc.file)
			}
			f, err := os.Open(copied)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			header := make([]byte, 20)
			if _, err := f.ReadAt(header, 0); err != nil || header[18] != 2 || header[19] != 2 {
				t.Errorf("%s's file format bytes %v (%v): want WAL (2, 2)", tc.file, header[18:20], err)
			}
		})
	}
}

// TestFreshImageOfThisBuild: the build embeds the image with FTS5 tables
// exactly when it has FTS5.
func TestFreshImageOfThisBuild(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	file := "fresh_fts5.db.gz"
	if db.KeywordIndex() != nil {
		file = "fresh.db.gz"
	}
	image, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if freshImage != string(image) {
		t.Errorf("the build embeds an image other than %s", file)
	}
}

// writeImage gzips the database at path into file.
func writeImage(t *testing.T, path, file string) {
	t.Helper()
	b, err := os.ReadFile(path)
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
	if err := os.WriteFile(file, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s made again: %d bytes, %d inflated", file, z.Len(), len(b))
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
