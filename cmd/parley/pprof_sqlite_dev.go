//go:build parleypprof

package main

import (
	"fmt"
	"os"

	"github.com/parleybot/parley/internal/cmalloc"
)

// writeSQLiteMemory logs what the C heap holds now: in Parley, SQLite's
// page caches and statements. SQLite's own statistics are off
// (store/memory_cgo.go), so it cannot say itself, nor its high-water mark.
func writeSQLiteMemory() {
	fmt.Fprintf(os.Stderr, "memclass sqlite (C heap) in use %d KiB\n", cmalloc.InUse()/1024)
}
