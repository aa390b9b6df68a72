package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/mattn/go-sqlite3"
)

// Reading the database table by table, as it is stored, for copying it to
// another engine (parley migrate, store/postgres's Import). Only the
// schema's own tables are data: goose's version table, SQLite's internal
// tables and the keyword index (kb_fts, a virtual table, and its shadow
// tables) are bookkeeping or derived, and the other engine keeps its own.

// Table is a data table of the schema.
type Table struct {
	Name string
	// Columns are the table's columns in schema order; Rows yields values
	// in this order.
	Columns []string
	// Key is the primary key's columns, in key order.
	Key []string
	// rowid says the table has SQLite's rowid (it is not WITHOUT ROWID).
	rowid bool
}

// Order is the order Rows reads a table in.
type Order int

const (
	// ByKey is primary-key order: integers by value, text by its bytes
	// (SQLite's BINARY collation).
	ByKey Order = iota
	// ByInsertion is rowid order where the table has a rowid, so rows
	// written in the same millisecond keep the order they were written
	// in (the inbox's), else primary-key order.
	ByInsertion
)

// Unused makes sure no other connection has the database at path open —
// a running Parley keeps it open while it runs — by taking an exclusive
// lock on it for a moment: SQLite's WAL mode holds a shared lock for as
// long as a connection is open. It returns an error wrapping ErrLocked
// when the file is in use. It creates nothing: a missing file is an
// error.
func Unused(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	q := url.Values{}
	q.Set("_busy_timeout", "0")
	q.Set("_locking_mode", "EXCLUSIVE")
	q.Set("mode", "rw")
	c, err := sql.Open(driverName, "file:"+escapePath(path)+"?"+q.Encode())
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `BEGIN EXCLUSIVE; COMMIT`); err != nil {
		if se, ok := errors.AsType[sqlite3.Error](err); ok && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked) {
			return fmt.Errorf("store: %s is open in another process (is Parley running?): %w", path, ErrLocked)
		}
		return fmt.Errorf("store: %s: %w", path, err)
	}
	return nil
}

// Tables lists the data tables, each after the tables its foreign keys
// reference, so copying them in this order never refers to a row not yet
// copied.
func (db *DB) Tables(ctx context.Context) ([]Table, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT name, wr FROM pragma_table_list
		WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' AND name <> ?
		ORDER BY name`, versionTable)
	if err != nil {
		return nil, fmt.Errorf("store: list tables: %w", err)
	}
	var tables []Table
	for rows.Next() {
		var t Table
		var withoutRowid bool
		if err := rows.Scan(&t.Name, &withoutRowid); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: list tables: %w", err)
		}
		t.rowid = !withoutRowid
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list tables: %w", err)
	}
	refs := map[string][]string{}
	for i := range tables {
		if err := db.describe(ctx, &tables[i]); err != nil {
			return nil, fmt.Errorf("store: describe %s: %w", tables[i].Name, err)
		}
		if refs[tables[i].Name], err = db.references(ctx, tables[i].Name); err != nil {
			return nil, fmt.Errorf("store: describe %s: %w", tables[i].Name, err)
		}
	}
	return parentsFirst(tables, refs)
}

// describe fills t's columns and primary key.
func (db *DB) describe(ctx context.Context, t *Table) error {
	rows, err := db.r.QueryContext(ctx, `SELECT name, pk FROM pragma_table_info(?) ORDER BY cid`, t.Name)
	if err != nil {
		return err
	}
	defer rows.Close()
	type keyCol struct {
		name string
		pos  int
	}
	var key []keyCol
	for rows.Next() {
		var name string
		var pk int
		if err := rows.Scan(&name, &pk); err != nil {
			return err
		}
		t.Columns = append(t.Columns, name)
		if pk > 0 {
			key = append(key, keyCol{name, pk})
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(key) == 0 {
		return fmt.Errorf("no primary key")
	}
	slices.SortFunc(key, func(a, b keyCol) int { return cmp.Compare(a.pos, b.pos) })
	for _, k := range key {
		t.Key = append(t.Key, k.name)
	}
	return nil
}

// references lists the tables table's foreign keys refer to.
func (db *DB) references(ctx context.Context, table string) ([]string, error) {
	return column[string](ctx, db.r, `SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)`, table)
}

// parentsFirst orders tables so that each comes after those it refers to
// (a table referring to itself is fine); among tables free to go, by name.
func parentsFirst(tables []Table, refs map[string][]string) ([]Table, error) {
	var out []Table
	done := map[string]bool{}
	for len(out) < len(tables) {
		progress := false
		for _, t := range tables {
			if done[t.Name] {
				continue
			}
			ready := true
			for _, r := range refs[t.Name] {
				if r != t.Name && !done[r] {
					ready = false
				}
			}
			if ready {
				out = append(out, t)
				done[t.Name] = true
				progress = true
			}
		}
		if !progress {
			return nil, fmt.Errorf("store: the tables' foreign keys form a cycle")
		}
	}
	return out, nil
}

// Rows reads t's rows in order, each as its column values in t.Columns'
// order: int64, float64, string, []byte or nil, as SQLite stores them.
// One statement reads them, a snapshot of the table however long the
// caller takes over them (not of the database: copy it while Parley is
// stopped). A row's slice is reused by the next row.
func (db *DB) Rows(ctx context.Context, t Table, order Order) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = quoteIdent(c)
		}
		by := make([]string, len(t.Key))
		for i, k := range t.Key {
			by[i] = quoteIdent(k)
		}
		orderBy := strings.Join(by, ", ")
		if order == ByInsertion && t.rowid {
			orderBy = "rowid"
		}
		rows, err := db.r.QueryContext(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM `+quoteIdent(t.Name)+` ORDER BY `+orderBy)
		if err != nil {
			yield(nil, fmt.Errorf("store: read %s: %w", t.Name, err))
			return
		}
		defer rows.Close()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				yield(nil, fmt.Errorf("store: read %s: %w", t.Name, err))
				return
			}
			if !yield(vals, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(nil, fmt.Errorf("store: read %s: %w", t.Name, err))
		}
	}
}

// quoteIdent quotes a table or column name for SQL.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
