package store

/*
int sqlite3_config(int, ...);
long long sqlite3_memory_used(void);

// SQLITE_CONFIG_MEMSTATUS is 9 in sqlite3.h, which mattn/go-sqlite3
// compiles in but does not install.
static int parley_sqlite_memstatus_off(void) { return sqlite3_config(9, 0); }
*/
import "C"

// SQLite counts every allocation in process-wide statistics under one
// mutex (SQLITE_DEFAULT_MEMSTATUS, which mattn/go-sqlite3 leaves on).
// Every connection pays for the lock at each allocation, and two that
// parse the schema side by side take turns: on this repository's
// database one connection opened in 0.93 ms with the statistics and
// 0.58 ms without, and two side by side in 1.9 ms with them and 0.65 ms
// without (docs/footprint.md). Parley reads none of them; the C heap's
// own figure (cmalloc.InUse) measures what SQLite holds instead.
//
// sqlite3_config works only before SQLite's first use, and every use in
// Parley goes through this package: package initialisation is the one
// moment that is certainly before. The call allocates nothing.
func init() {
	C.parley_sqlite_memstatus_off()
}

// sqliteCounted is what SQLite's own statistics say it holds: zero while
// they are off.
func sqliteCounted() int64 { return int64(C.sqlite3_memory_used()) }
