// Package store is Parley's storage: one SQLite file (mattn/go-sqlite3, WAL
// mode) holding sessions and their transcripts, the thread → session map,
// users and their memory, the inbound inbox, the outbox, approvals and
// platform cursors. *DB implements the storage interfaces that agent and bot
// declare (agent.SessionStore, agent.MemoryStore, bot.SessionMap).
//
// A DB keeps two pools on the file. Writes go through a pool of exactly one
// connection, so writers of this process queue in Go rather than spin in
// SQLite's busy handler; every write transaction begins IMMEDIATE, taking the
// write lock up front, so a read-then-write transaction can never fail to
// upgrade its lock half way. Reads go through a read-only pool, which WAL lets
// run while a write is in progress. No write transaction spans anything slow.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3" // registers driverName (the writer opens through checkpoint.go's connector)
)

// DB is an open Parley database. It is safe for concurrent use.
type DB struct {
	path string
	w    *sql.DB       // one connection: all writes
	r    *sql.DB       // read-only connections: reads that need no write lock
	ckpt *checkpointer // WAL checkpoints beside the writer (checkpoint.go)
	// readers is how many read connections r keeps open and idle.
	readers int
	now     func() time.Time
	newID   func() string
	// noFTS is why the knowledge base is off (a build without FTS5), or
	// nil.
	noFTS error
}

// Open opens the database at path, creating it (and its directory) when
// missing, checks it and applies any pending migrations. A database that
// cannot be used fails here, with an error that names the file and wraps
// ErrLocked, ErrReadOnly, ErrCorrupt or ErrTooNew.
func Open(ctx context.Context, path string, opts ...Option) (*DB, error) {
	return open(ctx, path, migrations(), append([]Option{func(c *config) { c.image = freshImage }}, opts...)...)
}

func open(ctx context.Context, path string, schema fs.FS, opts ...Option) (_ *DB, err error) {
	if path == "" {
		return nil, errors.New("store: no database path")
	}
	// The absolute path goes into every error, so an operator knows which
	// file is meant whatever the working directory was.
	if path, err = filepath.Abs(path); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	cfg := defaultConfig()
	for _, opt := range opts {
		opt(&cfg)
	}
	made, err := ensureFile(ctx, path, schema, cfg.image) // fresh.go
	if err != nil {
		return nil, classify(path, cfg.busyTimeout, err)
	}

	db := &DB{path: path, now: cfg.now, newID: cfg.newID}
	defer func() {
		if err != nil {
			db.Close()
		}
	}()
	ckptConn, err := sql.Open(driverName, dsn(path, false, cfg.busyTimeout))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	ckptConn.SetMaxOpenConns(1)
	db.ckpt = newCheckpointer(ckptConn)
	db.w = sql.OpenDB(writerConnector(dsn(path, false, cfg.busyTimeout), db.ckpt.committed))
	db.ckpt.writer = db.w
	go db.ckpt.run()
	db.w.SetMaxOpenConns(1)
	db.w.SetMaxIdleConns(1)
	if err := db.checkWAL(ctx); err != nil {
		return nil, classify(path, cfg.busyTimeout, err)
	}
	if err := db.prepareWriter(ctx, schema, cfg.busyTimeout, made); err != nil {
		return nil, err
	}
	// The read pool opens after the writer has put the file in WAL mode: a
	// read-only connection cannot do that itself. Pinging it beside the
	// writer's checks, rather than after them, made BenchmarkOpen slower
	// (3.25 → 4.2 ms on two cores): the two connections contend.
	if db.r, err = sql.Open(driverName, dsn(path, true, cfg.busyTimeout)); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db.readers = max(4, runtime.GOMAXPROCS(0))
	db.r.SetMaxOpenConns(db.readers)
	db.r.SetMaxIdleConns(db.readers) // keep them while busy: opening one runs a dozen pragmas
	if err := db.r.PingContext(ctx); err != nil {
		return nil, classify(path, cfg.busyTimeout, err)
	}
	return db, nil
}

// Close closes the database. The writer closes last, so that as the last
// connection it checkpoints the WAL into the main file.
func (db *DB) Close() error {
	var errs []error
	if db.ckpt != nil {
		errs = append(errs, db.ckpt.stop())
	}
	if db.r != nil {
		errs = append(errs, db.r.Close())
	}
	if db.w != nil {
		errs = append(errs, db.w.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("store: close %s: %w", db.path, err)
	}
	return nil
}

// Path returns the absolute path of the database file.
func (db *DB) Path() string { return db.path }

// driverName is the name github.com/mattn/go-sqlite3 registers itself under.
const driverName = "sqlite3"

// dsn builds the go-sqlite3 data source name for path. The writer asks for
// WAL, IMMEDIATE transactions and foreign keys; the readers are read-only
// and keep the default deferred BEGIN, since _txlock applies to every BEGIN.
func dsn(path string, readOnly bool, busy time.Duration) string {
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(busy.Milliseconds(), 10))
	// Reuse prepared statements per connection: the store runs a small,
	// fixed set of queries, and preparing each anew cost 15-35 % of every
	// operation in the benchmarks.
	q.Set("_stmt_cache_size", "32")
	// Each connection's page cache stops at 512 KiB (SQLite's default is
	// 2 MiB): five connections would otherwise hold up to 10 MiB of
	// private memory as the file grows, for no speed the benchmarks can
	// see — reads past the cache come from the OS page cache
	// (docs/footprint.md).
	q.Set("_cache_size", "-512")
	if readOnly {
		q.Set("mode", "ro")
	} else {
		q.Set("_journal_mode", "WAL")
		q.Set("_txlock", "immediate")
		q.Set("_foreign_keys", "on")
	}
	return "file:" + escapePath(path) + "?" + q.Encode()
}

// escapePath is path as a URI filename's path: there '?' starts the
// query and '#' the fragment, and '%' escapes, so a path holding them
// must escape them.
func escapePath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
}

// prepareWriter makes sure, through the writer, that the file is a
// database this process can use, so that each problem surfaces at startup
// with a clear error rather than at the first write, then brings its
// schema up to date. The writer is in WAL mode already (checkWAL). made
// is whether this process has just made the file (ensureFile): then it is
// a copy of the embedded image, or built by the migrations, and synced,
// and a quick check of it (~1 ms) would only read back what was written.
func (db *DB) prepareWriter(ctx context.Context, schema fs.FS, busy time.Duration, made bool) error {
	if !made {
		if err := db.quickCheck(ctx); err != nil {
			return classify(db.path, busy, err)
		}
	}
	if err := db.probeWrite(ctx); err != nil {
		return classify(db.path, busy, err)
	}
	if err := db.backupBeforeMigrate(ctx, schema); err != nil { // backup.go
		return fmt.Errorf("store: %s: %w", db.path, err)
	}
	if err := migrate(ctx, db.w, schema); err != nil {
		return classify(db.path, busy, err)
	}
	if err := db.createKeywordIndex(ctx); err != nil {
		return classify(db.path, busy, err)
	}
	return nil
}

// checkWAL makes sure the DSN's journal_mode=WAL took effect.
func (db *DB) checkWAL(ctx context.Context) error {
	var mode string
	if err := db.w.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		// SQLite falls back quietly where WAL cannot work: WAL needs
		// shared memory, which network file systems do not provide.
		return fmt.Errorf("journal mode is %q: SQLite could not switch to WAL, which needs a local file system", mode)
	}
	return nil
}

// quickCheck runs PRAGMA quick_check, which reads every page: a damaged
// database is refused at startup instead of failing some later query. It
// costs time in proportion to the file's size: 0.2 s for 250 MB already in
// the page cache.
func (db *DB) quickCheck(ctx context.Context) error {
	return checkPragma(ctx, db.w, "quick_check")
}

// checkPragma runs a checking PRAGMA (quick_check, integrity_check) on q:
// nil when it reports "ok", else an *integrityError with its report.
func checkPragma(ctx context.Context, q queryer, pragma string) error {
	rows, err := q.QueryContext(ctx, "PRAGMA "+pragma)
	if err != nil {
		return err
	}
	defer rows.Close()
	var report []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			report = append(report, line)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(report) > 0 {
		return &integrityError{report}
	}
	return nil
}

// probeWrite takes the write lock and writes, then rolls back. BEGIN
// IMMEDIATE waits out the busy timeout behind another process's lock. A
// read-only file shows only on writing: SQLite quietly opens such a file
// read-only, and a read-only connection can still take the lock. So the
// probe rewrites the header field user_version with its own value.
func (db *DB) probeWrite(ctx context.Context) error {
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int64
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.FormatInt(version, 10))
	return err
}

// write runs fn in one transaction on the writer connection and commits it.
// The transaction holds the database's write lock from its first statement,
// so fn must not wait on anything slow. An error from fn rolls the
// transaction back and is returned as is.
func (db *DB) write(ctx context.Context, fn func(*sql.Tx) error) error {
	return inTx(ctx, db.w, fn)
}

// inTx runs fn in one transaction on conn and commits it; an error from fn
// rolls it back and is returned as is. (Opening runs it on connections
// that are no DB yet: fresh.go, message_index.go.)
func inTx(ctx context.Context, conn *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback() // fn's error is the one worth reporting
		return err
	}
	return tx.Commit()
}

// millis is the storage form of a time: unix milliseconds.
func millis(t time.Time) int64 { return t.UnixMilli() }

// fromMillis is the inverse of millis, in UTC.
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
