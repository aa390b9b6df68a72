//go:build parleypprof

package main

/*
#include <malloc.h>
*/
import "C"

import (
	"fmt"
	"os"
)

// writeSQLiteMemory logs what the C heap holds now: in Parley, SQLite's
// page caches and statements. SQLite's own statistics are off
// (store/memory_cgo.go), so it cannot say itself, nor its high-water mark.
func writeSQLiteMemory() {
	m := C.mallinfo2()
	fmt.Fprintf(os.Stderr, "memclass sqlite (C heap) in use %d KiB, mmapped %d KiB, free in arena %d KiB\n",
		int64(m.uordblks)/1024, int64(m.hblkhd)/1024, int64(m.fordblks)/1024)
}
