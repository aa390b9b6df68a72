package store

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
)

// openBudget bounds the Go heap allocated by opening a database, new or
// existing (~200 and ~30 KiB when this was written). Goose, which ran the
// migrations before, allocated 16 MiB of scan buffers on every first
// start (docs/footprint.md).
const openBudget = 1 << 20

func TestOpenAllocates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	for _, name := range []string{"new", "existing"} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		db, err := Open(t.Context(), path)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		got := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s database: Open allocated %d KiB", name, got>>10)
		if got > openBudget {
			t.Errorf("%s database: Open allocated %d KiB, more than %d KiB", name, got>>10, openBudget>>10)
		}
	}
}

func BenchmarkOpen(b *testing.B) {
	path := filepath.Join(b.TempDir(), "parley.db")
	b.ReportAllocs()
	for b.Loop() {
		db, err := Open(b.Context(), path)
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}

// BenchmarkOpenNew is Open of a database that does not exist yet: the
// first start's cost (file, WAL, every migration).
func BenchmarkOpenNew(b *testing.B) {
	dir := b.TempDir()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		db, err := Open(b.Context(), filepath.Join(dir, fmt.Sprintf("parley-%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
}

// TestPageCacheBounded: every connection, writer and readers, keeps at
// most 512 KiB of pages, so private memory does not grow with the file.
func TestPageCacheBounded(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for name, pool := range map[string]*sql.DB{"writer": db.w, "reader": db.r} {
		var size int
		if err := pool.QueryRowContext(t.Context(), "PRAGMA cache_size").Scan(&size); err != nil {
			t.Fatal(err)
		}
		if size != -512 {
			t.Errorf("%s: cache_size %d, want -512 (KiB)", name, size)
		}
	}
}
