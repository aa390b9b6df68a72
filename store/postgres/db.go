// Package postgres is Parley's storage on PostgreSQL: the same method set
// as package store (SQLite), with the same domain types and sentinel
// errors, for deployments where several Parley processes share one
// database.
//
// Where SQLite relied on its single writer — one write transaction at a
// time, in every process — this package says per method how it stays
// correct under concurrent callers from several processes: conditional
// statements (INSERT … ON CONFLICT, UPDATE … WHERE status = …), row locks
// taken before a read-modify-write (SELECT … FOR UPDATE), SKIP LOCKED for
// claims of work, and transaction-scoped advisory locks where the row to
// lock may not exist yet.
//
// Where the engines differ, on purpose:
//   - there is no Path (no file); PoolStats reports the one pool as the
//     writer;
//   - PostgreSQL's text refuses the NUL character and invalid UTF-8, which
//     SQLite keeps: a write holding them fails, except a knowledge-base
//     passage's text, where NUL is stored as U+FFFD (textOnly);
//   - keyword search ranks by ts_rank_cd weighted by IDF (kb_index.go),
//     not BM25: the same query finds the same passages, and its scores are
//     on another scale (Score is higher for better, as in store);
//   - Vectors and WithLogger say which vector storage Open found.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DB is an open Parley database on PostgreSQL. It is safe for concurrent
// use, and any number of DBs, in any number of processes, may share one
// database.
type DB struct {
	pool  *pgxpool.Pool
	now   func() time.Time
	newID func() string
	// vectors says how kb_vectors are stored and searched (vectors.go).
	vectors VectorStorage
	// commits counts the transactions tx committed (Commits).
	commits atomic.Int64
}

// Open connects to the database at url (a PostgreSQL connection URL or
// key=value string), applies any pending migrations, and reports through
// the logger which vector storage it uses.
func Open(ctx context.Context, url string, opts ...Option) (_ *DB, err error) {
	cfg := defaultConfig()
	for _, opt := range opts {
		opt(&cfg)
	}
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	db := &DB{pool: pool, now: cfg.now, newID: cfg.newID}
	defer func() {
		if err != nil {
			pool.Close()
		}
	}()
	if err := pool.Ping(ctx); err != nil {
		return nil, fmt.Errorf("postgres: connect to %s: %w", pcfg.ConnConfig.Host, err)
	}
	if err := migrate(ctx, pool, migrations()); err != nil {
		return nil, fmt.Errorf("postgres: migrate: %w", err)
	}
	if err := indexQueued(ctx, pool); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if db.vectors, err = detectVectors(ctx, pool); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	cfg.logger.Info("postgres store open", "vectors", db.vectors.String())
	return db, nil
}

// Close closes the connection pool.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// querier is what a pool and a transaction both offer.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// rowScanner is a pgx.Row or pgx.Rows.
type rowScanner interface {
	Scan(dest ...any) error
}

// tx runs fn in one READ COMMITTED transaction and commits it. Unlike
// SQLite's write transactions, it excludes nobody: fn takes the locks its
// read-modify-write needs. An error from fn rolls back and is returned as
// is.
//
// The store takes its locks in one order (the row a method is about, then
// what hangs off it), so transactions should never deadlock; should
// PostgreSQL still report a deadlock or a serialization failure, the
// transaction is run again from the start, a few times, so fn must set
// what it reports afresh on each run.
func (db *DB) tx(ctx context.Context, fn func(pgx.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := pgx.BeginFunc(ctx, db.pool, fn)
		if err == nil {
			db.commits.Add(1)
		}
		if attempt == maxAttempts || !retryable(err) {
			return err
		}
	}
}

// maxAttempts bounds tx's runs of one transaction.
const maxAttempts = 3

// retryable reports the errors after which a transaction can simply run
// again: deadlock_detected and serialization_failure.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}

// lockKey takes a transaction-scoped advisory lock on the key's hash:
// for read-modify-writes whose row may not exist yet, so there is no row
// for SELECT … FOR UPDATE to lock. Keys of unrelated things that share a
// hash only wait for each other.
func lockKey(ctx context.Context, tx pgx.Tx, parts ...string) error {
	key := ""
	for _, p := range parts {
		key += p + "\x1f"
	}
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, key)
	return err
}

// ts is the storage form of a time: UTC, truncated to the millisecond, as
// SQLite keeps unix milliseconds; so both engines return the same times
// and compare deadlines at the same precision.
func ts(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// optTS is ts, with the zero time stored as NULL.
func optTS(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = ts(t)
	return &t
}

// fromTS is a time as read: in UTC, as store returns them.
func fromTS(t time.Time) time.Time { return t.UTC() }

// fromOptTS is the inverse of optTS: NULL is the zero time.
func fromOptTS(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// noRows reports whether err is pgx's "no rows".
func noRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// sqlLimit is n as a LIMIT argument: as SQLite reads a negative LIMIT, no
// limit (NULL), where PostgreSQL would refuse it.
func sqlLimit(n int) *int {
	if n < 0 {
		return nil
	}
	return &n
}
