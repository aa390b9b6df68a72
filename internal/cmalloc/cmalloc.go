// Package cmalloc tunes the C heap that SQLite allocates from: glibc's
// malloc, which Parley's release builds link statically. The calls are
// weak, so a build against a C library without them (musl) links and they
// do nothing there.
//
// glibc gives each thread that first calls malloc an arena of its own, up
// to eight per core, and Go runs SQLite on whichever thread runs the
// goroutine: after a busy spell six arenas each kept their own free and
// partly used pages, 0.6 MiB more after 200 answers in 50 chats than with
// one or two arenas (docs/footprint.md). One arena made threads queue for
// its lock (BenchmarkRouterMessage +9 %); two cost nothing measurable. So a
// binary that links this package has two arenas (M_ARENA_MAX 2), unless
// MALLOC_ARENA_MAX says otherwise. It is set by a C constructor, as the
// process loads: by the time Go code runs, the runtime's threads have
// already made arenas of their own.
package cmalloc

/*
#include <stddef.h>
#include <stdlib.h>

extern int malloc_trim(size_t pad) __attribute__((weak));
extern int mallopt(int param, int value) __attribute__((weak));

// glibc's struct mallinfo2 (malloc.h, glibc 2.33), which musl does not
// declare: only the fields InUse reads are named.
struct parley_mallinfo2 {
	size_t arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, fordblks, keepcost;
};
extern struct parley_mallinfo2 mallinfo2(void) __attribute__((weak));

// glibc's M_ARENA_MAX (malloc.h), which musl does not define.
#define PARLEY_M_ARENA_MAX -8

#define PARLEY_ARENAS 2

// 1 when the constructor set the arenas, 0 when it did not (the
// environment chose, or no mallopt).
static int parley_arenas_set;

__attribute__((constructor)) static void parley_arenas(void) {
	if (mallopt && !getenv("MALLOC_ARENA_MAX")) {
		parley_arenas_set = mallopt(PARLEY_M_ARENA_MAX, PARLEY_ARENAS) == 1;
	}
}

static int parley_arenas_taken(void) { return parley_arenas_set; }

static void parley_trim(void) {
	if (malloc_trim) {
		malloc_trim(0);
	}
}

static long long parley_in_use(void) {
	if (!mallinfo2) {
		return -1;
	}
	struct parley_mallinfo2 m = mallinfo2();
	return (long long)(m.uordblks + m.hblkhd);
}
*/
import "C"

// Trim returns the C heap's free pages to the OS (malloc_trim): what
// SQLite frees otherwise stays in the allocator, counted as the process's
// memory.
func Trim() { C.parley_trim() }

// InUse is what the process holds from malloc now, in bytes, every arena
// and the chunks mapped on their own included (mallinfo2): in Parley,
// SQLite's page caches and statements, and little else. It is -1 where
// the C library has no mallinfo2 (musl).
func InUse() int64 { return int64(C.parley_in_use()) }

// Arenas is how many C heap arenas the process was limited to as it
// loaded (see the package's comment), or 0 when it was not.
func Arenas() int {
	if C.parley_arenas_taken() == 1 {
		return C.PARLEY_ARENAS
	}
	return 0
}
