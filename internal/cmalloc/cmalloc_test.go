package cmalloc

import (
	"os"
	"testing"
)

// TestOneArena: glibc took one arena as the test binary loaded (these
// tests run on glibc, as the release builds link it), unless the
// environment chose; trimming afterwards is safe.
func TestOneArena(t *testing.T) {
	_, chose := os.LookupEnv("MALLOC_ARENA_MAX")
	if got := OneArena(); got == chose {
		t.Errorf("one arena: %v with MALLOC_ARENA_MAX set %v", got, chose)
	}
	Trim()
}
