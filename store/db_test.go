package store_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/parleybot/parley/store"
)

// rawDB opens path with plain go-sqlite3, to look at or tamper with a
// database behind the store's back.
func rawDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOpenCreatesDirectoryAndPrivateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "deeper", "parley.db")
	db := openDB(t, path)
	if db.Path() != path {
		t.Errorf("Path() = %q, want %q", db.Path(), path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("database file mode = %v, want 0600 (it holds users' memory)", perm)
	}
}

func TestOpenPathWithURIMetacharacters(t *testing.T) {
	// '?', '#' and '%' mean something in a SQLite URI filename.
	path := filepath.Join(t.TempDir(), "odd?dir#x%41", "parley.db")
	db := openDB(t, path)
	if err := db.Set(t.Context(), "k", "v"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not at the path given: %v", err)
	}
}

func TestOpenPathIsDirectory(t *testing.T) {
	path := t.TempDir()
	db, err := store.Open(t.Context(), path)
	if err == nil {
		db.Close()
		t.Fatal("Open of a directory succeeded")
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name %s", err, path)
	}
}
