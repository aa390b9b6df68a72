package main

import (
	"database/sql"
	"fmt"
	"os"
	"time"
)

const schemaChunks = `
CREATE TABLE kb_chunks (id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL, scope TEXT NOT NULL, start_line INTEGER, end_line INTEGER, hash TEXT NOT NULL, text TEXT NOT NULL);
CREATE INDEX kb_chunks_scope ON kb_chunks(scope);`

// The planned table (A) and, for comparison, the same as a rowid table (A2).
const (
	schemaVectorsA  = `CREATE TABLE kb_vectors (model TEXT NOT NULL, hash TEXT NOT NULL, vec BLOB NOT NULL, PRIMARY KEY(model, hash)) WITHOUT ROWID`
	schemaVectorsA2 = `CREATE TABLE kb_vectors (id INTEGER PRIMARY KEY, model TEXT NOT NULL, hash TEXT NOT NULL, vec BLOB NOT NULL, UNIQUE(model, hash))`
)

// batch is the rows per write transaction while building: about one
// ingested document's worth of chunks at a time, not one giant transaction.
const batch = 1000

// dsnWrite is the store's writer DSN (dependencies.md) plus what the
// benchmark needs; dsnRead is the read pool's.
func dsnWrite(path string) string {
	return "file:" + path + "?_journal_mode=WAL&_busy_timeout=5000&_txlock=immediate"
}
func dsnRead(path string) string { return "file:" + path + "?mode=ro&_busy_timeout=5000" }

// build is what building one database cost.
type build struct {
	Storage     string
	ChunksTime  time.Duration // inserting kb_chunks
	VectorsTime time.Duration // inserting the vectors
	ChunksBytes int64         // file size with kb_chunks only
	TotalBytes  int64         // file size with the vectors too
}

func fileSize(path string) int64 {
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

func checkpoint(db *sql.DB) error {
	_, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}

// inBatches runs fn(i) for i in [0,n) in write transactions of batch rows
// each, with stmt prepared inside each transaction.
func inBatches(db *sql.DB, n int, query string, fn func(st *sql.Stmt, i int) error) error {
	for lo := 0; lo < n; lo += batch {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		st, err := tx.Prepare(query)
		if err != nil {
			tx.Rollback()
			return err
		}
		for i := lo; i < min(lo+batch, n); i++ {
			if err := fn(st, i); err != nil {
				tx.Rollback()
				return err
			}
		}
		st.Close()
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// buildDB creates path for storage "A", "A2", "Cp" or "Cm" from vecs
// (cfg.N rows of cfg.Dim floats).
func buildDB(path, storage string, cfg config, vecs []float32) (build, error) {
	b := build{Storage: storage}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		os.Remove(p)
	}
	db, err := sql.Open("sqlite3", dsnWrite(path))
	if err != nil {
		return b, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schemaChunks); err != nil {
		return b, err
	}
	t := time.Now()
	err = inBatches(db, cfg.N, `INSERT INTO kb_chunks(id, doc_id, scope, start_line, end_line, hash, text) VALUES (?,?,?,?,?,?,?)`,
		func(st *sql.Stmt, i int) error {
			_, err := st.Exec(i+1, i/10+1, scopeKey(cfg.scopeOf(i)), (i%10)*40+1, (i%10)*40+40, chunkHash(i), chunkText(i))
			return err
		})
	if err != nil {
		return b, fmt.Errorf("kb_chunks: %w", err)
	}
	b.ChunksTime = time.Since(t)
	if err := checkpoint(db); err != nil {
		return b, err
	}
	b.ChunksBytes = fileSize(path)

	buf := make([]byte, 4*cfg.Dim)
	row := func(i int) []float32 { return vecs[i*cfg.Dim : (i+1)*cfg.Dim] }
	var ddl, ins string
	var args func(i int) []any
	switch storage {
	case "A", "A2":
		ddl = schemaVectorsA
		if storage == "A2" {
			ddl = schemaVectorsA2
		}
		ins = `INSERT INTO kb_vectors(model, hash, vec) VALUES (?,?,?)`
		args = func(i int) []any { return []any{cfg.model(), chunkHash(i), encode(buf, row(i))} }
	case "Cp", "Cm":
		ddl = vec0DDL(storage, cfg.Dim)
		ins = `INSERT INTO kb_vec(chunk_id, scope, embedding) VALUES (?,?,?)`
		args = func(i int) []any { return []any{i + 1, scopeKey(cfg.scopeOf(i)), encode(buf, row(i))} }
	default:
		return b, fmt.Errorf("unknown storage %q", storage)
	}
	if _, err := db.Exec(ddl); err != nil {
		return b, err
	}
	t = time.Now()
	err = inBatches(db, cfg.N, ins, func(st *sql.Stmt, i int) error {
		_, err := st.Exec(args(i)...)
		return err
	})
	if err != nil {
		return b, fmt.Errorf("vectors: %w", err)
	}
	b.VectorsTime = time.Since(t)
	if err := checkpoint(db); err != nil {
		return b, err
	}
	b.TotalBytes = fileSize(path)
	return b, nil
}
