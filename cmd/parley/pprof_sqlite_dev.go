//go:build parleypprof

package main

/*
long long sqlite3_memory_used(void);
long long sqlite3_memory_highwater(int);
*/
import "C"

import (
	"fmt"
	"os"
)

// writeSQLiteMemory logs what SQLite holds from malloc now and at most.
func writeSQLiteMemory() {
	fmt.Fprintf(os.Stderr, "memclass sqlite used %d KiB, highwater %d KiB\n",
		int64(C.sqlite3_memory_used())/1024, int64(C.sqlite3_memory_highwater(0))/1024)
}
