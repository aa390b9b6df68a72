package diskfree

import (
	"errors"
	"strings"
	"testing"
)

func TestFloor(t *testing.T) {
	fixed := func(n uint64, err error) func(string) (uint64, error) {
		return func(string) (uint64, error) { return n, err }
	}
	broken := errors.New("statfs failed")
	tests := []struct {
		name    string
		floor   Floor
		low     bool
		wantErr string
	}{
		{"off", Floor{Min: 0, Free: fixed(0, nil)}, false, ""},
		{"above", Floor{Min: 256 << 20, Free: fixed(300<<20, nil)}, false, ""},
		{"exactly at", Floor{Min: 256 << 20, Free: fixed(256<<20, nil)}, false, ""},
		{"below", Floor{Min: 256 << 20, Free: fixed(100<<20, nil)}, true, "100 MiB free, below the floor of 256 MiB (store.min_free_mb)"},
		{"unreadable", Floor{Min: 1, Free: fixed(0, broken)}, false, "statfs failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.floor.Check()
			if errors.Is(err, ErrLow) != tt.low {
				t.Errorf("Check() = %v, low %v", err, tt.low)
			}
			if (err != nil) != (tt.wantErr != "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Check() = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestFreeOfARealDirectory(t *testing.T) {
	n, err := Free(t.TempDir())
	if err != nil || n == 0 {
		t.Fatalf("Free = %d, %v", n, err)
	}
	if err := (Floor{Path: t.TempDir(), Min: 1}).Check(); err != nil {
		t.Errorf("a floor of one byte: %v", err)
	}
	if _, err := Free("/nonexistent/dir"); err == nil {
		t.Error("Free of a missing path succeeded")
	}
}

func TestMiB(t *testing.T) {
	for n, want := range map[uint64]string{5 << 20: "5 MiB", 3 << 29: "1.5 GiB", 20 << 30: "20 GiB"} {
		if got := MiB(n); got != want {
			t.Errorf("MiB(%d) = %q, want %q", n, got, want)
		}
	}
}
