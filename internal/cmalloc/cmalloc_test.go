package cmalloc

import (
	"os"
	"testing"
)

// TestArenas: glibc took the limit as the test binary loaded (these tests
// run on glibc, as the release builds link it), unless the environment
// chose; trimming afterwards is safe.
func TestArenas(t *testing.T) {
	_, chose := os.LookupEnv("MALLOC_ARENA_MAX")
	want := 2
	if chose {
		want = 0
	}
	if got := Arenas(); got != want {
		t.Errorf("arenas: %d with MALLOC_ARENA_MAX set %v, want %d", got, chose, want)
	}
	Trim()
}

// TestInUse: on glibc the heap's figure is there and counts something (a
// cgo program's threads come from malloc'd memory); store's
// TestReleaseMemory checks that it falls when SQLite frees its caches.
func TestInUse(t *testing.T) {
	if n := InUse(); n <= 0 {
		t.Errorf("InUse = %d: want the C heap's bytes in use", n)
	}
}
