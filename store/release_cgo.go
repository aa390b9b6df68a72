package store

/*
#include <stddef.h>

// malloc_trim is glibc's; musl has none, so it is weak: NULL there.
extern int malloc_trim(size_t pad) __attribute__((weak));

long long sqlite3_memory_used(void);

static void parley_malloc_trim(void) {
	if (malloc_trim) {
		malloc_trim(0);
	}
}
*/
import "C"

// releaseCMemory returns the C heap's free pages to the OS, where the C
// library can (glibc's malloc_trim): SQLite's freed pages otherwise stay
// in the allocator's per-thread arenas, counted as the process's memory.
func releaseCMemory() { C.parley_malloc_trim() }

// sqliteMemoryUsed is what SQLite holds from the C heap now, in bytes.
func sqliteMemoryUsed() int64 { return int64(C.sqlite3_memory_used()) }
