package store_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/store"
)

// wantOpenError checks that err is the classified failure want and that
// its message names the database file and says what is wrong.
func wantOpenError(t *testing.T, err error, want error, path, phrase string) {
	t.Helper()
	if err == nil {
		t.Fatalf("Open succeeded; want %v", want)
	}
	if !errors.Is(err, want) {
		t.Errorf("Open error %q is not %v", err, want)
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, phrase) {
		t.Errorf("Open error %q: want it to name %s and say %q", msg, path, phrase)
	}
}

func TestOpenCorrupt(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, path string)
		phrase string
		report string // in the message when quick_check found the damage
	}{
		{
			name: "garbage",
			damage: func(t *testing.T, path string) {
				garbage := make([]byte, 16<<10)
				rand.Read(garbage)
				if err := os.WriteFile(path, garbage, 0o600); err != nil {
					t.Fatal(err)
				}
			},
			phrase: "is not a SQLite database (file is corrupt or encrypted)",
		},
		{
			name: "text file",
			damage: func(t *testing.T, path string) {
				text := bytes.Repeat([]byte("telegram: token: 123:abc\n"), 100)
				if err := os.WriteFile(path, text, 0o600); err != nil {
					t.Fatal(err)
				}
			},
			phrase: "is not a SQLite database (file is corrupt or encrypted)",
		},
		{
			name:   "damaged pages",
			damage: damage(0.25, 0, bytes.Repeat([]byte{0xA5}, 64<<10)),
			phrase: "is corrupt",
		},
		{
			// Header, schema and page structure intact; one page's first
			// freeblock offset points past its end. Only quick_check notices.
			name:   "free space corruption",
			damage: damage(0.75, 1, []byte{0x0f, 0xf0}),
			phrase: "is corrupt; stop parley",
			report: "quick_check: Tree ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := dbPath(t)
			tt.damage(t, path)
			db, err := store.Open(t.Context(), path)
			if err == nil {
				db.Close()
			}
			wantOpenError(t, err, store.ErrCorrupt, path, tt.phrase)
			if err != nil && !strings.Contains(err.Error(), tt.report) {
				t.Errorf("Open error %q: want quick_check's report %q", err, tt.report)
			}
		})
	}
}

func TestOpenLocked(t *testing.T) {
	tests := []struct {
		name string
		// lock takes a lock on path as another process would and holds it
		// until the test ends.
		lock func(t *testing.T, path string)
	}{
		{
			name: "exclusive locking mode",
			lock: func(t *testing.T, path string) {
				other := rawDB(t, "file:"+path+"?_locking_mode=EXCLUSIVE")
				if _, err := other.Exec(`INSERT INTO kv (key, value, updated_at) VALUES ('x', 'y', 0)`); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "write transaction",
			lock: func(t *testing.T, path string) {
				other := rawDB(t, "file:"+path+"?_txlock=immediate")
				tx, err := other.Begin()
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { tx.Rollback() })
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := dbPath(t)
			db, err := store.Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			tt.lock(t, path)
			db, err = store.Open(t.Context(), path, store.WithBusyTimeout(20*time.Millisecond))
			if err == nil {
				db.Close()
			}
			wantOpenError(t, err, store.ErrLocked, path, "is locked by another process")
		})
	}
}

// damage returns a function that creates a real database with some data,
// closes it and writes junk at offset off into the page found at fraction at
// of the file.
func damage(at float64, off int64, junk []byte) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		db, err := store.Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 300 {
			if err := db.Set(t.Context(), fmt.Sprintf("cursor-%04d", i), strings.Repeat("v", 500)); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		const pageSize = 4096 // SQLite's default
		page := int64(at*float64(fi.Size())) / pageSize
		if page < 1 || page*pageSize+off+int64(len(junk)) > fi.Size() {
			t.Fatalf("database of %d bytes too small to damage at %v", fi.Size(), at)
		}
		if _, err := f.WriteAt(junk, page*pageSize+off); err != nil {
			t.Fatal(err)
		}
	}
}
