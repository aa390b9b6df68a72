package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFreshDatabase: a new database is made whole beside its path and
// linked into place — private, in WAL mode, every migration applied,
// nothing left beside it; a migration that fails leaves no database at
// all, so the next start begins again from nothing; a database that
// appears at the path meanwhile is kept, not replaced.
func TestFreshDatabase(t *testing.T) {
	t.Run("new", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		path := filepath.Join(dir, "parley.db")
		db, err := Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		var version int64
		if err := db.w.QueryRowContext(t.Context(), "SELECT max(version_id) FROM goose_db_version").Scan(&version); err != nil || version != latestVersion(t) {
			t.Fatalf("schema version %d (%v), want %d", version, err, latestVersion(t))
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(path)
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("database %v, mode %v; want 0600", err, info.Mode().Perm())
		}
		if got := listDir(t, dir); strings.Join(got, " ") != "parley.db" {
			t.Fatalf("left in the directory: %q", got)
		}
		header := make([]byte, 20)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.ReadAt(header, 0); err != nil || header[18] != 2 || header[19] != 2 {
			t.Fatalf("file format bytes %v (%v): want 2, 2 (WAL)", header[18:20], err)
		}
	})
	t.Run("a failed migration leaves nothing", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "parley.db")
		_, err := open(t.Context(), path, withMigration(t, "99999_broken.sql", "-- +goose Up\nCREATE TABLE broken (;\n"))
		if err == nil {
			t.Fatal("a broken migration opened")
		}
		if got := listDir(t, dir); len(got) != 0 {
			t.Fatalf("left in the directory: %q", got)
		}
		db, err := Open(t.Context(), path)
		if err != nil {
			t.Fatalf("the next start: %v", err)
		}
		db.Close()
	})
	t.Run("one made meanwhile is kept", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "parley.db")
		db, err := Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Set(t.Context(), "mark", "kept"); err != nil {
			t.Fatal(err)
		}
		db.Close()
		// As if another process linked its database first.
		if _, err := createFresh(t.Context(), path, migrations(), ""); err != nil {
			t.Fatal(err)
		}
		db, err = Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if v, ok, err := db.Get(t.Context(), "mark"); err != nil || !ok || v != "kept" {
			t.Fatalf("the earlier database's mark: %q %v %v", v, ok, err)
		}
		if got := listDir(t, dir); strings.Contains(strings.Join(got, " "), ".new-") {
			t.Fatalf("left in the directory: %q", got)
		}
	})
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
