package store

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// embedded holds the schema migrations. They are SQL only and run in order,
// each in its own transaction, when a database is opened.
//
//go:embed migrations/*.sql
var embedded embed.FS

// migrations returns the embedded migrations rooted at their folder.
func migrations() fs.FS {
	sub, err := fs.Sub(embedded, "migrations")
	if err != nil {
		// fs.Sub fails only for an invalid path, and this one is a constant.
		panic(err)
	}
	return sub
}

// The migrations are goose files (NNNNN_name.sql, "-- +goose Up" and
// "-- +goose Down" sections) and the applied versions live in goose's
// table, so databases made by earlier builds, which ran goose, open as
// they are, and those made now open with them. Goose itself is no longer
// linked: its SQL parser takes four 4 MiB scan buffers on every first
// start, which set the garbage collector's goal past 30 MiB for the
// process's first minutes (docs/footprint.md). Parley's migrations need
// none of its parsing: the Up section is executed as one script.
const versionTable = "goose_db_version"

// migration is one schema step, named NNNNN_name.sql.
type migration struct {
	version int64
	name    string
}

// migrate brings the schema of db up to the newest migration in fsys, the
// pending migrations in one transaction together with their version rows.
func migrate(ctx context.Context, db *sql.DB, fsys fs.FS) error {
	if err := ensureVersionTable(ctx, db); err != nil {
		return fmt.Errorf("create version table: %w", err)
	}
	applied, err := appliedVersions(ctx, db)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	pending, err := PendingMigrations(fsys, applied)
	if err != nil || len(pending) == 0 {
		return err
	}
	if err := apply(ctx, db, pending); err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	return nil
}

// Migration is a pending schema step: its version, its file's name and
// its Up section, the SQL to run.
type Migration struct {
	Version int64
	Name    string
	Up      string
}

// PendingMigrations reads the goose migrations of fsys (NNNNN_name.sql)
// and returns, in order, those whose versions are not in applied. It is
// the part of migrating that is the same for every engine — which files,
// which of them are due, what SQL each runs — so store/postgres's runner
// shares it; the version table, its locking and the transaction are each
// engine's own. A database with a version newer than fsys knows is
// refused with ErrTooNew; only the pending files' SQL is read.
func PendingMigrations(fsys fs.FS, applied []int64) ([]Migration, error) {
	steps, err := readMigrations(fsys)
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	current := int64(0)
	if len(applied) > 0 {
		current = slices.Max(applied)
	}
	known := int64(0)
	if len(steps) > 0 {
		known = steps[len(steps)-1].version
	}
	// A database migrated by a newer Parley has a schema this build does
	// not know; writing to it could break what the newer one relies on.
	if current > known {
		return nil, fmt.Errorf("schema version %d, this build knows up to %d: %w", current, known, ErrTooNew)
	}
	var pending []Migration
	for _, m := range steps {
		if slices.Contains(applied, m.version) {
			continue
		}
		if m.version < current {
			// Goose refused these too: a step older than the schema was
			// written against a schema this database never had.
			return nil, fmt.Errorf("migration %s is older than the schema (version %d) but was never applied", m.name, current)
		}
		data, err := fs.ReadFile(fsys, m.name)
		if err != nil {
			return nil, fmt.Errorf("load migrations: %w", err)
		}
		up, err := upSection(string(data))
		if err != nil {
			return nil, fmt.Errorf("load migrations: %s: %w", m.name, err)
		}
		pending = append(pending, Migration{Version: m.version, Name: m.name, Up: up})
	}
	return pending, nil
}

// readMigrations lists and orders the migrations of fsys's root. Only the
// names are read: a database that is up to date reads no SQL.
func readMigrations(fsys fs.FS) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.ParseInt(num, 10, 64)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("%s: the name must start with a positive version and '_'", name)
		}
		out = append(out, migration{version: v, name: name})
	}
	slices.SortFunc(out, func(a, b migration) int { return cmp.Compare(a.version, b.version) })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("%s and %s have the same version", out[i-1].name, out[i].name)
		}
	}
	return out, nil
}

// upSection is the text between "-- +goose Up" and "-- +goose Down" (or
// the end). The annotations are SQL comments, so the section runs as it
// is; those that would change how goose ran it (no transaction,
// environment substitution) are refused rather than ignored.
func upSection(src string) (string, error) {
	var up strings.Builder
	in := false
	seen := false
	for line := range strings.Lines(src) {
		ann, ok := strings.CutPrefix(strings.TrimSpace(line), "-- +goose ")
		if !ok {
			if in {
				up.WriteString(line)
			}
			continue
		}
		switch strings.TrimSpace(ann) {
		case "Up":
			in, seen = true, true
		case "Down":
			in = false
		case "StatementBegin", "StatementEnd":
			// The section runs as one script: SQLite finds the end of a
			// trigger body itself, PostgreSQL's simple protocol that of
			// a function's.
		default:
			return "", fmt.Errorf("unsupported annotation %q", strings.TrimSpace(line))
		}
	}
	if !seen {
		return "", errors.New(`no "-- +goose Up" section`)
	}
	return up.String(), nil
}

// ensureVersionTable creates goose's version table as goose does, with its
// version 0 row, when it is missing.
func ensureVersionTable(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx,
		`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, versionTable).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE `+versionTable+` (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		version_id INTEGER NOT NULL,
		is_applied INTEGER NOT NULL,
		tstamp TIMESTAMP DEFAULT (datetime('now'))
	)`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+versionTable+` (version_id, is_applied) VALUES (0, 1)`); err != nil {
		return err
	}
	return tx.Commit()
}

// appliedVersions lists the applied versions above 0. A version goose
// rolled back has is_applied = 0 in its newest row.
func appliedVersions(ctx context.Context, db *sql.DB) ([]int64, error) {
	rows, err := db.QueryContext(ctx, `SELECT version_id, is_applied FROM `+versionTable+` ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	state := map[int64]bool{}
	for rows.Next() {
		var v int64
		var ok bool
		if err := rows.Scan(&v, &ok); err != nil {
			return nil, err
		}
		state[v] = ok
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []int64
	for v, ok := range state {
		if ok && v > 0 {
			out = append(out, v)
		}
	}
	return out, nil
}

// apply runs the pending migrations and records them in one transaction:
// a failing step leaves the database as it was, at a version some build
// knows, and a new database is created in one commit rather than one per
// step (4 ms of the first start).
func apply(ctx context.Context, db *sql.DB, pending []Migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, m := range pending {
		if _, err := tx.ExecContext(ctx, m.Up); err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO `+versionTable+` (version_id, is_applied) VALUES (?, 1)`, m.Version); err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
	}
	return tx.Commit()
}
