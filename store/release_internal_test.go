package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleybot/parley/internal/cmalloc"
)

// TestReleaseMemory: after readers have cached a table's pages, releasing
// hands SQLite's caches back, keeps one idle reader, leaves a connection
// in use alone, and the store reads on as before, opening readers again
// when it needs them.
func TestReleaseMemory(t *testing.T) {
	ctx := t.Context()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// ~2 MiB of rows: more than one connection's page cache holds.
	if _, err := db.w.ExecContext(ctx, `CREATE TABLE filler(v TEXT)`); err != nil {
		t.Fatal(err)
	}
	row := strings.Repeat("x", 1000)
	for range 2000 {
		if _, err := db.w.ExecContext(ctx, `INSERT INTO filler(v) VALUES (?)`, row); err != nil {
			t.Fatal(err)
		}
	}
	// Every reader at once, so each connection reads the table into its
	// own cache.
	readers := make([]*sql.Conn, 4)
	for i := range readers {
		if readers[i], err = db.r.Conn(ctx); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := readers[i].QueryRowContext(ctx, `SELECT count(*) FROM filler WHERE v != ''`).Scan(&n); err != nil || n != 2000 {
			t.Fatalf("read %d rows: %v", n, err)
		}
	}
	busy := readers[0] // stays in use through the release
	for _, c := range readers[1:] {
		c.Close()
	}

	before := cmalloc.InUse()
	if err := db.ReleaseMemory(ctx); err != nil {
		t.Fatal(err)
	}
	after := cmalloc.InUse()
	// Three idle readers and the writer each held up to its 512 KiB cache.
	if freed := before - after; freed < 1<<20 {
		t.Errorf("the C heap held %d KiB before and %d KiB after: want at least 1 MiB freed", before>>10, after>>10)
	}
	if st := db.r.Stats(); st.Idle != 1 || st.InUse != 1 {
		t.Errorf("readers after the release: %d idle, %d in use; want 1 and the busy one", st.Idle, st.InUse)
	}
	var n int
	if err := busy.QueryRowContext(ctx, `SELECT count(*) FROM filler`).Scan(&n); err != nil || n != 2000 {
		t.Errorf("the busy reader afterwards: %d rows, %v", n, err)
	}
	busy.Close()
	// A busy spell again: every reader at once, reopened as needed.
	for i := range readers {
		if readers[i], err = db.r.Conn(ctx); err != nil {
			t.Fatal(err)
		}
		if err := readers[i].QueryRowContext(ctx, `SELECT count(*) FROM filler`).Scan(&n); err != nil || n != 2000 {
			t.Errorf("reader %d after the release: %d rows, %v", i, n, err)
		}
	}
	for _, c := range readers {
		c.Close()
	}
	if st := db.r.Stats(); st.Idle != len(readers) {
		t.Errorf("after a busy spell %d readers idle, want %d kept", st.Idle, len(readers))
	}
}

// TestReleaseMemoryCancelled: a release asked to stop says so.
func TestReleaseMemoryCancelled(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := db.ReleaseMemory(ctx); err == nil {
		t.Error("a cancelled release returned no error")
	}
}

// TestSQLiteStatisticsOff: the package's initialisation turned SQLite's
// memory statistics off before its first use (memory_cgo.go), so a store
// open and read leaves them at zero, while the C heap holds its caches.
func TestSQLiteStatisticsOff(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.r.QueryRowContext(t.Context(), `SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil || n == 0 {
		t.Fatalf("read the schema: %d entries, %v", n, err)
	}
	if got := sqliteCounted(); got != 0 {
		t.Errorf("SQLite counts %d bytes: its memory statistics are on", got)
	}
	if cmalloc.InUse() <= 0 {
		t.Errorf("the C heap holds %d bytes: cmalloc.InUse measures nothing", cmalloc.InUse())
	}
}
