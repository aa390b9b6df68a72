package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"iter"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/store"
)

// Verifying an import: each table is read again on both sides, in
// primary-key order (text by its bytes on both), every row rendered in
// canonical form (import_values.go) and hashed; the copy is right when
// the row counts and the SHA-256 sums agree. Only the columns SQLite
// has are compared: what this engine derives (inbox.seq, kb_chunks.tsv)
// has no source to compare with.

// TableCheck is one table's verification.
type TableCheck struct {
	Table string
	// Rows and Sum are the source's row count and checksum; CopiedRows
	// and CopiedSum this database's.
	Rows, CopiedRows int64
	Sum, CopiedSum   string
}

// OK reports whether the copy equals its source.
func (c TableCheck) OK() bool { return c.Rows == c.CopiedRows && c.Sum == c.CopiedSum }

// checksum hashes canonical rows.
type checksum struct {
	h    hash.Hash
	rows int64
	buf  []byte
}

func newChecksum() *checksum { return &checksum{h: sha256.New()} }

// add hashes one row, its values in cols' order.
func (s *checksum) add(cols []column, row []any) error {
	s.buf = s.buf[:0]
	var err error
	for i, c := range cols {
		if s.buf, err = canonical(s.buf, c, row[i]); err != nil {
			return err
		}
	}
	s.h.Write(s.buf)
	s.rows++
	return nil
}

// addAll hashes every row of rows.
func (s *checksum) addAll(cols []column, rows iter.Seq2[[]any, error]) error {
	for row, err := range rows {
		if err != nil {
			return err
		}
		if err := s.add(cols, row); err != nil {
			return err
		}
	}
	return nil
}

func (s *checksum) sum() string { return hex.EncodeToString(s.h.Sum(nil)) }

// verify compares the table's copy with its source.
func (p tablePlan) verify(ctx context.Context, tx pgx.Tx, src Source) (TableCheck, error) {
	c := TableCheck{Table: p.src.Name}
	from := newChecksum()
	if err := from.addAll(p.cols, src.Rows(ctx, p.src, store.ByKey)); err != nil {
		return c, err
	}
	to := newChecksum()
	if err := to.addAll(p.cols, p.rows(ctx, tx)); err != nil {
		return c, err
	}
	c.Rows, c.Sum, c.CopiedRows, c.CopiedSum = from.rows, from.sum(), to.rows, to.sum()
	return c, nil
}

// rows reads the copy's columns in primary-key order, text keys by their
// bytes (COLLATE "C") as SQLite's BINARY orders them, and JSON as text.
func (p tablePlan) rows(ctx context.Context, tx pgx.Tx) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		sel := make([]string, len(p.cols))
		for i, c := range p.cols {
			sel[i] = pgx.Identifier{c.name}.Sanitize()
			if c.kind == kindJSON {
				sel[i] += "::text"
			}
		}
		by := make([]string, len(p.src.Key))
		for i, k := range p.src.Key {
			by[i] = pgx.Identifier{k}.Sanitize()
			for _, c := range p.cols {
				if c.name == k && c.kind == kindText {
					by[i] += ` COLLATE "C"`
				}
			}
		}
		rows, err := tx.Query(ctx, `SELECT `+strings.Join(sel, ", ")+` FROM `+pgx.Identifier{p.src.Name}.Sanitize()+
			` ORDER BY `+strings.Join(by, ", "))
		if err != nil {
			yield(nil, err)
			return
		}
		defer rows.Close()
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(vals, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(nil, err)
		}
	}
}
