package store

/*
long long sqlite3_memory_used(void);
*/
import "C"

// sqliteMemoryUsed is what SQLite holds from the C heap now, in bytes.
func sqliteMemoryUsed() int64 { return int64(C.sqlite3_memory_used()) }
