package harden

import (
	"testing"

	"golang.org/x/sys/unix"
)

func TestNonDumpable(t *testing.T) {
	if err := NonDumpable(); err != nil {
		t.Fatal(err)
	}
	v, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil || v != 0 {
		t.Fatalf("PR_GET_DUMPABLE = %d, %v after NonDumpable; want 0", v, err)
	}
}
