package postgres

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/store"
)

// Import copies a SQLite database (parley migrate --to postgres) into
// this one: every data table, in one transaction, with each column
// converted to this schema's representation, what this engine derives
// rebuilt (the keyword index's tsvector, identity sequences past the
// copied ids), then verified table by table (import_verify.go) before
// COMMIT. A copy that differs from its source is rolled back.

// Source is the database Import copies: a *store.DB.
type Source interface {
	// Tables lists the data tables, each after those it refers to.
	Tables(ctx context.Context) ([]store.Table, error)
	// Rows reads a table's rows in order.
	Rows(ctx context.Context, t store.Table, order store.Order) iter.Seq2[[]any, error]
}

var (
	// ErrNotEmpty is Import's refusal of a database that already holds
	// Parley data.
	ErrNotEmpty = errors.New("the database already holds Parley data")
	// ErrMismatch is Import's verdict when a table's copy differs from its
	// source; the copy was rolled back.
	ErrMismatch = errors.New("the copy differs from its source")
)

// seeded are the tables a migration fills with their initial row
// (kb_state's generation counter): a fresh database holds it, and the
// copy replaces it.
var seeded = []string{"kb_state"}

// Import copies src into db, which must hold no Parley data (ErrNotEmpty
// otherwise), and returns each table's verification, in copy order. Its
// transaction locks every table against writers, so replicas started
// meanwhile wait for it. An error other than ErrMismatch comes with no
// checks.
func (db *DB) Import(ctx context.Context, src Source) ([]TableCheck, error) {
	tables, err := src.Tables(ctx)
	if err != nil {
		return nil, err
	}
	var checks []TableCheck
	err = pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		checks = nil
		plans, err := planImport(ctx, tx, tables)
		if err != nil {
			return err
		}
		if err := lockAndCheckEmpty(ctx, tx, plans); err != nil {
			return err
		}
		for _, p := range plans {
			if err := p.copy(ctx, tx, src); err != nil {
				return fmt.Errorf("copy %s: %w", p.src.Name, err)
			}
		}
		bad := false
		for _, p := range plans {
			c, err := p.verify(ctx, tx, src)
			if err != nil {
				return fmt.Errorf("verify %s: %w", p.src.Name, err)
			}
			checks = append(checks, c)
			bad = bad || !c.OK()
		}
		if bad {
			return ErrMismatch
		}
		return nil
	})
	if err != nil && !errors.Is(err, ErrMismatch) {
		return nil, fmt.Errorf("postgres: import: %w", err)
	}
	return checks, err
}

// kind is how a column's values are represented here, and so how a SQLite
// value is converted and rendered (import_verify.go).
type kind int

const (
	kindInt   kind = iota // bigint, integer: SQLite's INTEGER
	kindText              // text
	kindTime              // timestamptz: SQLite's unix milliseconds
	kindBool              // boolean: SQLite's 0 or 1
	kindJSON              // jsonb: SQLite's JSON text
	kindBytes             // bytea: SQLite's BLOB
	kindTSV               // tsvector: derived, not in SQLite
)

var kinds = map[string]kind{
	"bigint": kindInt, "integer": kindInt, "smallint": kindInt,
	"text": kindText, "timestamp with time zone": kindTime, "boolean": kindBool,
	"jsonb": kindJSON, "bytea": kindBytes, "tsvector": kindTSV,
}

// column is one column of a table here.
type column struct {
	name     string
	kind     kind
	nullable bool
	identity bool
}

// tablePlan is how one SQLite table is copied: its columns here, in the
// source's order, and what this engine adds.
type tablePlan struct {
	src  store.Table
	cols []column // src.Columns' counterparts
	// identity are the table's identity columns here, whose sequences
	// must go past the copied ids.
	identity []string
	// tsv says the table has a tsv column, derived: kb_chunks' from each
	// passage's text and its document's name, messages' from each
	// message's text (deriver).
	tsv bool
}

// planImport matches the source's tables and columns with this schema's.
// Both are migrated to the same version, so they must correspond
// exactly, except for what this engine adds: identity columns it
// generates (inbox.seq) and the tsv columns of kb_chunks and messages.
func planImport(ctx context.Context, tx pgx.Tx, tables []store.Table) ([]tablePlan, error) {
	here, err := targetColumns(ctx, tx)
	if err != nil {
		return nil, err
	}
	var plans []tablePlan
	for _, t := range tables {
		cols, ok := here[t.Name]
		if !ok {
			return nil, fmt.Errorf("table %s has no counterpart here", t.Name)
		}
		delete(here, t.Name)
		p := tablePlan{src: t}
		for _, name := range t.Columns {
			i := slices.IndexFunc(cols, func(c column) bool { return c.name == name })
			if i < 0 {
				return nil, fmt.Errorf("column %s.%s has no counterpart here", t.Name, name)
			}
			if cols[i].kind == kindTSV {
				return nil, fmt.Errorf("column %s.%s: a tsvector cannot be copied", t.Name, name)
			}
			p.cols = append(p.cols, cols[i])
		}
		for _, c := range cols {
			if c.identity {
				p.identity = append(p.identity, c.name)
			}
			if slices.Contains(t.Columns, c.name) || c.identity {
				continue
			}
			if deriver(t.Name) != nil && c.kind == kindTSV && c.name == "tsv" {
				p.tsv = true
				continue
			}
			return nil, fmt.Errorf("column %s.%s has no counterpart in SQLite", t.Name, c.name)
		}
		plans = append(plans, p)
	}
	for name := range here {
		return nil, fmt.Errorf("table %s has no counterpart in SQLite", name)
	}
	return plans, nil
}

// targetColumns reads this schema's tables and their columns.
func targetColumns(ctx context.Context, tx pgx.Tx) (map[string][]column, error) {
	rows, err := tx.Query(ctx, `
		SELECT table_name, column_name, data_type, is_nullable = 'YES', is_identity = 'YES'
		FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name <> $1
		ORDER BY table_name, ordinal_position`, versionTable)
	if err != nil {
		return nil, err
	}
	out := map[string][]column{}
	var table, typ string
	var c column
	_, err = pgx.ForEachRow(rows, []any{&table, &c.name, &typ, &c.nullable, &c.identity}, func() error {
		k, ok := kinds[typ]
		if !ok {
			return fmt.Errorf("column %s.%s: type %s is not one Import knows", table, c.name, typ)
		}
		c.kind = k
		out[table] = append(out[table], c)
		return nil
	})
	return out, err
}

// lockAndCheckEmpty locks every table against writers until the
// transaction ends, then refuses a database any of them has a row in
// (the seeded tables' own rows aside, which it deletes).
func lockAndCheckEmpty(ctx context.Context, tx pgx.Tx, plans []tablePlan) error {
	names := make([]string, len(plans))
	for i, p := range plans {
		names[i] = pgx.Identifier{p.src.Name}.Sanitize()
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE `+strings.Join(names, ", ")+` IN EXCLUSIVE MODE`); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	var full []string
	for i, p := range plans {
		if slices.Contains(seeded, p.src.Name) {
			if _, err := tx.Exec(ctx, `DELETE FROM `+names[i]); err != nil {
				return err
			}
			continue
		}
		var any bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+names[i]+`)`).Scan(&any); err != nil {
			return err
		}
		if any {
			full = append(full, p.src.Name)
		}
	}
	if len(full) > 0 {
		return fmt.Errorf("%w: %s hold rows", ErrNotEmpty, strings.Join(full, ", "))
	}
	return nil
}

// copy streams the table's rows, in the order they were written, into
// this table with COPY, then sets its identity sequences past them.
func (p tablePlan) copy(ctx context.Context, tx pgx.Tx, src Source) error {
	names := make([]string, len(p.cols), len(p.cols)+1)
	for i, c := range p.cols {
		names[i] = c.name
	}
	var derive func(src, dst []any) error
	if p.tsv {
		names = append(names, "tsv")
		var err error
		if derive, err = deriver(p.src.Name)(ctx, tx, p.src); err != nil {
			return err
		}
	}
	next, stop := iter.Pull2(src.Rows(ctx, p.src, store.ByInsertion))
	defer stop()
	out := make([]any, len(names))
	_, err := tx.CopyFrom(ctx, pgx.Identifier{p.src.Name}, names, pgx.CopyFromFunc(func() ([]any, error) {
		row, err, ok := next()
		if !ok {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		for i, c := range p.cols {
			if out[i], err = toPostgres(c, row[i]); err != nil {
				return nil, fmt.Errorf("column %s: %w", c.name, err)
			}
		}
		if derive != nil {
			if err := derive(row, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}))
	if err != nil {
		return err
	}
	for _, col := range p.identity {
		ident := pgx.Identifier{col}.Sanitize()
		if _, err := tx.Exec(ctx, `SELECT setval(pg_get_serial_sequence($1, $2), coalesce(max(`+ident+`), 0) + 1, false) FROM `+
			pgx.Identifier{p.src.Name}.Sanitize(), pgx.Identifier{p.src.Name}.Sanitize(), col); err != nil {
			return fmt.Errorf("sequence of %s: %w", col, err)
		}
	}
	return nil
}
