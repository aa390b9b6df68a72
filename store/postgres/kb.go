package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// The knowledge base's tables and its keyword index, kb_chunks.tsv
// (kb_index.go builds it). Every write of passages or vectors begins by
// counting up kb_state's generation, which locks that one row until
// commit: knowledge-base writers, in any process, take turns as they did
// behind SQLite's write lock, so a document replaced by two processes at
// once is deleted and inserted by one and then the other, never both
// inserted.

// KeywordIndex is nil: PostgreSQL's full-text search is always there.
func (db *DB) KeywordIndex() error { return nil }

// docColumns are kb_documents' columns in scanDocument's order.
const docColumns = `d.id, d.scope, d.source, d.title, d.kind, d.hash, d.bytes, d.added_by, d.added_by_name, d.added_at, d.modified_at,
	(SELECT count(*) FROM kb_chunks c WHERE c.doc_id = d.id)`

func scanDocument(row rowScanner) (kb.Document, error) {
	var d kb.Document
	var modified *time.Time
	err := row.Scan(&d.ID, &d.Scope, &d.Source, &d.Title, &d.Kind, &d.Hash, &d.Bytes, &d.AddedBy, &d.AddedByName, &d.AddedAt, &modified, &d.Chunks)
	d.AddedAt, d.Modified = fromTS(d.AddedAt), fromOptTS(modified)
	return d, err
}

// PutDocument stores doc and its passages, replacing the document of the
// same scope and source, in one transaction.
func (db *DB) PutDocument(ctx context.Context, doc kb.Document, chunks []kb.IndexedChunk) (kb.Document, error) {
	err := db.tx(ctx, func(tx pgx.Tx) error {
		if err := deleteDocument(ctx, tx, `scope = $1 AND source = $2`, doc.Scope, doc.Source); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `
			INSERT INTO kb_documents (scope, source, title, kind, hash, bytes, added_by, added_by_name, added_at, modified_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
			doc.Scope, doc.Source, doc.Title, doc.Kind, doc.Hash, doc.Bytes, doc.AddedBy, doc.AddedByName,
			ts(doc.AddedAt), optTS(doc.Modified)).Scan(&doc.ID); err != nil {
			return err
		}
		b := &pgx.Batch{}
		for _, c := range chunks {
			b.Queue(`
				INSERT INTO kb_chunks (doc_id, scope, start_line, end_line, hash, text, tsv)
				VALUES ($1, $2, $3, $4, $5, $6, $7::tsvector)`,
				doc.ID, doc.Scope, c.Start, c.End, c.Hash, textOnly(c.Text), tsvectorLiteral(c.Body, c.Uni, c.Head))
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return kb.Document{}, fmt.Errorf("postgres: put document %q: %w", doc.Source, err)
	}
	doc.Chunks = len(chunks)
	return doc, nil
}

// textOnly is s as a text column can hold it: PostgreSQL refuses the NUL
// character, which SQLite keeps and extracted documents (a PDF's text)
// may hold, so it is shown as U+FFFD, as invalid UTF-8 already is.
func textOnly(s string) string { return strings.ReplaceAll(s, "\x00", "\uFFFD") }

// bumpGeneration records, in the transaction that changes passages or
// vectors, that they changed; it also serializes the knowledge base's
// writers (see above).
func bumpGeneration(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `UPDATE kb_state SET generation = generation + 1`)
	return err
}

// Generation changes whenever passages or vectors do, in any process.
func (db *DB) Generation(ctx context.Context) (int64, error) {
	var g int64
	if err := db.pool.QueryRow(ctx, `SELECT generation FROM kb_state`).Scan(&g); err != nil {
		return 0, fmt.Errorf("postgres: knowledge base generation: %w", err)
	}
	return g, nil
}

// deleteDocument removes the documents matching where and, by ON DELETE
// CASCADE, their passages with their index entries.
func deleteDocument(ctx context.Context, tx pgx.Tx, where string, args ...any) error {
	if err := bumpGeneration(ctx, tx); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `DELETE FROM kb_documents WHERE `+where, args...)
	return err
}

// Document finds the document of scope with source.
func (db *DB) Document(ctx context.Context, scope, source string) (kb.Document, bool, error) {
	return db.findDocument(ctx, `d.scope = $1 AND d.source = $2`, scope, source)
}

// DocumentByHash finds a document of scope with this content hash.
func (db *DB) DocumentByHash(ctx context.Context, scope, hash string) (kb.Document, bool, error) {
	return db.findDocument(ctx, `d.scope = $1 AND d.hash = $2`, scope, hash)
}

// DocumentByID finds a document by its ID.
func (db *DB) DocumentByID(ctx context.Context, id int64) (kb.Document, bool, error) {
	return db.findDocument(ctx, `d.id = $1`, id)
}

func (db *DB) findDocument(ctx context.Context, where string, args ...any) (kb.Document, bool, error) {
	d, err := scanDocument(db.pool.QueryRow(ctx, `SELECT `+docColumns+` FROM kb_documents d WHERE `+where+` ORDER BY d.id LIMIT 1`, args...))
	if noRows(err) {
		return kb.Document{}, false, nil
	}
	if err != nil {
		return kb.Document{}, false, fmt.Errorf("postgres: find document: %w", err)
	}
	return d, true, nil
}

// Documents lists the documents of scopes, oldest first.
func (db *DB) Documents(ctx context.Context, scopes []string) ([]kb.Document, error) {
	return db.listDocuments(ctx, `d.scope = ANY($1)`, rowdata.NonNil(scopes))
}

// AllDocuments lists every scope's documents, oldest first.
func (db *DB) AllDocuments(ctx context.Context) ([]kb.Document, error) {
	return db.listDocuments(ctx, `true`)
}

func (db *DB) listDocuments(ctx context.Context, where string, args ...any) ([]kb.Document, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+docColumns+` FROM kb_documents d WHERE `+where+` ORDER BY d.added_at, d.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list documents: %w", err)
	}
	out, err := collect(rows, scanDocument)
	if err != nil {
		return nil, fmt.Errorf("postgres: list documents: %w", err)
	}
	return out, nil
}

// DeleteDocument removes a document with its passages. Removing one that
// is not there is not an error.
func (db *DB) DeleteDocument(ctx context.Context, id int64) error {
	if err := db.tx(ctx, func(tx pgx.Tx) error { return deleteDocument(ctx, tx, `id = $1`, id) }); err != nil {
		return fmt.Errorf("postgres: delete document %d: %w", id, err)
	}
	return nil
}

// ScopeBytes is the size of scope's documents together.
func (db *DB) ScopeBytes(ctx context.Context, scope string) (int64, error) {
	var n int64
	if err := db.pool.QueryRow(ctx, `SELECT coalesce(sum(bytes), 0) FROM kb_documents WHERE scope = $1`, scope).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: scope size: %w", err)
	}
	return n, nil
}

// passageColumns are what a Result needs, in scanPassage's order.
const passageColumns = `c.id, c.doc_id, d.source, c.start_line, c.end_line, c.text`

func scanPassage(row rowScanner) (kb.Result, error) {
	var r kb.Result
	err := row.Scan(&r.ChunkID, &r.DocID, &r.Source, &r.Start, &r.End, &r.Text)
	return r, err
}

// KeywordSearch runs match (an FTS5 query as kb.MatchQuery writes it,
// translated term by term by tsqueryTerms) over the passages of scopes,
// best first by keywordSearchSQL's rank: ts_rank_cd with the columns
// weighted as store weighs them, each term's weighed by its IDF. Score is
// the rank, higher is better.
func (db *DB) KeywordSearch(ctx context.Context, scopes []string, match string, n int) ([]kb.Result, error) {
	terms := tsqueryTerms(match)
	if len(scopes) == 0 || len(terms) == 0 {
		return nil, nil
	}
	rows, err := db.pool.Query(ctx, keywordSearchSQL, scopes, terms, sqlLimit(n))
	if err != nil {
		return nil, fmt.Errorf("postgres: keyword search: %w", err)
	}
	out, err := collect(rows, func(row rowScanner) (kb.Result, error) {
		var r kb.Result
		err := row.Scan(&r.ChunkID, &r.DocID, &r.Source, &r.Start, &r.End, &r.Text, &r.Score)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: keyword search: %w", err)
	}
	return out, nil
}

// Passages loads passages by ID, in no particular order.
func (db *DB) Passages(ctx context.Context, ids []int64) ([]kb.Result, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := db.pool.Query(ctx, `SELECT `+passageColumns+` FROM kb_chunks c JOIN kb_documents d ON d.id = c.doc_id WHERE c.id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("postgres: load passages: %w", err)
	}
	out, err := collect(rows, scanPassage)
	if err != nil {
		return nil, fmt.Errorf("postgres: load passages: %w", err)
	}
	return out, nil
}
