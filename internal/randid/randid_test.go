package randid

import (
	"encoding/hex"
	"testing"
)

func TestNew(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := New()
		if b, err := hex.DecodeString(id); err != nil || len(b) != 16 {
			t.Fatalf("New() = %q: want 32 hex digits", id)
		}
		if seen[id] {
			t.Fatalf("New() repeated %q", id)
		}
		seen[id] = true
	}
}
