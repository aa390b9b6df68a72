package postgres

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/postgres/pgtest"
	"github.com/parleybot/parley/store/storetest"
)

// TestChecksum: rows that hold the same logical values, as each engine
// returns them, hash the same; a change to any one value does not.
func TestChecksum(t *testing.T) {
	cols := []column{
		{name: "id", kind: kindInt},
		{name: "at", kind: kindTime},
		{name: "done_at", kind: kindTime, nullable: true},
		{name: "ok", kind: kindBool},
		{name: "refs", kind: kindJSON},
		{name: "text", kind: kindText},
		{name: "data", kind: kindBytes, nullable: true},
	}
	at := time.UnixMilli(1_790_000_000_123).UTC()
	sqlite := []any{int64(7), at.UnixMilli(), int64(0), int64(1), `{"b": [1, 2], "a": "x"}`, "a\x00b", []byte{1, 2}}
	pg := []any{int32(7), at, nil, true, `{"a": "x", "b": [1, 2]}`, "a\uFFFDb", []byte{1, 2}}
	sum := func(row []any) string {
		s := newChecksum()
		if err := s.add(cols, row); err != nil {
			t.Fatal(err)
		}
		return s.sum()
	}
	want := sum(sqlite)
	if got := sum(pg); got != want {
		t.Fatalf("the same row read from each engine hashes differently")
	}
	for _, tt := range []struct {
		name string
		i    int
		v    any
	}{
		{"another id", 0, int64(8)},
		{"a millisecond later", 1, at.Add(time.Millisecond)},
		{"a time where there was none", 2, at},
		{"false", 3, false},
		{"another JSON value", 4, `{"a": "x", "b": [2, 1]}`},
		{"other text", 5, "a b"},
		{"text for NULL", 5, nil},
		{"empty bytes for NULL", 6, nil},
		{"other bytes", 6, []byte{1, 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			row := append([]any(nil), pg...)
			row[tt.i] = tt.v
			if sum(row) == want {
				t.Errorf("changing %s to %v left the checksum as it was", cols[tt.i].name, tt.v)
			}
		})
	}
}

// corrupting is a Source that changes one value of one table while it is
// copied, and reads true when verified.
type corrupting struct {
	*store.DB
	table string
}

func (c corrupting) Rows(ctx context.Context, t store.Table, order store.Order) iter.Seq2[[]any, error] {
	rows := c.DB.Rows(ctx, t, order)
	if t.Name != c.table || order != store.ByInsertion {
		return rows
	}
	return func(yield func([]any, error) bool) {
		for row, err := range rows {
			if err == nil {
				row[len(row)-1] = int64(1) // updated_at, a time: 1 ms after 1970
			}
			if !yield(row, err) {
				return
			}
		}
	}
}

// TestImportRollsBackAMismatch: a copy that differs from its source is
// reported table by table and rolled back, so the database is still
// empty and an honest copy then succeeds; the passages' tsvectors are
// those PutDocument writes, the messages' those AppendMessages writes.
func TestImportRollsBackAMismatch(t *testing.T) {
	ctx := t.Context()
	src, err := store.Open(ctx, filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	storetest.Fill(t, src)
	db, err := Open(ctx, pgtest.NewDatabase(t), WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	checks, err := db.Import(ctx, corrupting{src, "sessions"})
	if !errors.Is(err, ErrMismatch) {
		t.Fatalf("Import of a corrupted copy = %v, want ErrMismatch", err)
	}
	for _, c := range checks {
		if c.OK() == (c.Table == "sessions") {
			t.Errorf("%s: ok %t (rows %d/%d, sums %.8s/%.8s)", c.Table, c.OK(), c.Rows, c.CopiedRows, c.Sum, c.CopiedSum)
		}
	}
	var n int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM sessions`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("after the mismatch, sessions holds %d rows (%v), want the copy rolled back", n, err)
	}

	if _, err := db.Import(ctx, src); err != nil {
		t.Fatalf("Import after the rollback: %v", err)
	}
	// Rebuild each passage's tsvector as PutDocument writes it (through
	// the literal, parsed by the server) and compare.
	rows, err := db.pool.Query(ctx, `SELECT c.id, c.text, d.title, d.source, c.tsv::text FROM kb_chunks c JOIN kb_documents d ON d.id = c.doc_id`)
	if err != nil {
		t.Fatal(err)
	}
	type passage struct {
		id                       int64
		text, title, source, tsv string
	}
	var ps []passage
	for rows.Next() {
		var p passage
		if err := rows.Scan(&p.id, &p.text, &p.title, &p.source, &p.tsv); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		t.Fatal("no passages copied")
	}
	for _, p := range ps {
		var want string
		lit := passageLiteral(p.text, docHead(p.title, p.source))
		if err := db.pool.QueryRow(ctx, `SELECT CAST($1 AS tsvector)::text`, lit).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if p.tsv != want {
			t.Errorf("passage %d: tsv %s, want %s", p.id, p.tsv, want)
		}
	}
	// The messages' tsvectors too: the copied conversations are found,
	// their tool results not.
	expectHits(t, db, map[string]int{"ünïcode": 1, "注意": 1, "done": 0})
}
