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
