package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// The knowledge base's tables (migration 00004) and its keyword index,
// kb_fts: an FTS5 table holding, per passage (rowid = kb_chunks.id), the
// derived text kb.IndexText makes. It is contentless — the text lives in
// kb_chunks once — with contentless_delete so a replaced document's rows
// can go.
var _ kb.Store = (*DB)(nil)

// createKeywordIndex creates kb_fts, and the conversations' msg_fts
// (message_index.go), when this build has FTS5. FTS5 is
// compiled into mattn/go-sqlite3 only with the build tag sqlite_fts5; a
// build without it keeps working with the knowledge base off, and says so
// (KeywordIndex).
func (db *DB) createKeywordIndex(ctx context.Context) error {
	fts, err := createKeywordIndex(ctx, db.w)
	if err == nil && !fts {
		db.noFTS = fmt.Errorf("%w", kb.ErrNoKeywordIndex)
	}
	if err != nil {
		return err
	}
	if _, err := createMessageIndex(ctx, db.w); err != nil {
		return fmt.Errorf("conversations' index: %w", err)
	}
	return nil
}

// createKeywordIndex creates kb_fts on db unless it exists, and reports
// whether this build has FTS5 at all (false, nil: it has not).
func createKeywordIndex(ctx context.Context, db *sql.DB) (fts bool, err error) {
	_, err = db.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS kb_fts USING fts5(
		body, uni, head, scope,
		content = '', contentless_delete = 1,
		tokenize = "unicode61 remove_diacritics 2 tokenchars '_'")`)
	if err != nil && strings.Contains(err.Error(), "no such module: fts5") {
		return false, nil
	}
	return err == nil, err
}

// KeywordIndex is nil when kb_fts is available.
func (db *DB) KeywordIndex() error { return db.noFTS }

// docColumns are kb_documents' columns in scanDocument's order.
const docColumns = `d.id, d.scope, d.source, d.title, d.kind, d.hash, d.bytes, d.added_by, d.added_by_name, d.added_at, d.modified_at,
	(SELECT count(*) FROM kb_chunks c WHERE c.doc_id = d.id)`

func scanDocument(row interface{ Scan(...any) error }) (kb.Document, error) {
	var d kb.Document
	var added, modified int64
	err := row.Scan(&d.ID, &d.Scope, &d.Source, &d.Title, &d.Kind, &d.Hash, &d.Bytes, &d.AddedBy, &d.AddedByName, &added, &modified, &d.Chunks)
	d.AddedAt = fromMillis(added)
	if modified != 0 {
		d.Modified = fromMillis(modified)
	}
	return d, err
}

// PutDocument stores doc and its passages, replacing the document of the
// same scope and source, in one transaction.
func (db *DB) PutDocument(ctx context.Context, doc kb.Document, chunks []kb.IndexedChunk) (kb.Document, error) {
	if db.noFTS != nil {
		return kb.Document{}, db.noFTS
	}
	var modified int64
	if !doc.Modified.IsZero() {
		modified = millis(doc.Modified)
	}
	err := db.write(ctx, func(tx *sql.Tx) error {
		if err := deleteDocument(ctx, tx, `scope = ? AND source = ?`, doc.Scope, doc.Source); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `
			INSERT INTO kb_documents (scope, source, title, kind, hash, bytes, added_by, added_by_name, added_at, modified_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			doc.Scope, doc.Source, doc.Title, doc.Kind, doc.Hash, doc.Bytes, doc.AddedBy, doc.AddedByName, millis(doc.AddedAt), modified)
		if err != nil {
			return err
		}
		if doc.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		chunk, err := tx.PrepareContext(ctx, `
			INSERT INTO kb_chunks (doc_id, scope, start_line, end_line, hash, text) VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer chunk.Close()
		index, err := tx.PrepareContext(ctx, `INSERT INTO kb_fts (rowid, body, uni, head, scope) VALUES (?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer index.Close()
		for _, c := range chunks {
			res, err := chunk.ExecContext(ctx, doc.ID, doc.Scope, c.Start, c.End, c.Hash, c.Text)
			if err != nil {
				return err
			}
			id, err := res.LastInsertId()
			if err != nil {
				return err
			}
			if _, err := index.ExecContext(ctx, id, c.Body, c.Uni, c.Head, scopeToken(doc.Scope)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return kb.Document{}, fmt.Errorf("store: put document %q: %w", doc.Source, err)
	}
	doc.Chunks = len(chunks)
	return doc, nil
}

// bumpGeneration records, in the transaction that changes passages or
// vectors, that they changed.
func bumpGeneration(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `UPDATE kb_state SET generation = generation + 1`)
	return err
}

// Generation changes whenever passages or vectors do, in any process.
func (db *DB) Generation(ctx context.Context) (int64, error) {
	var g int64
	if err := db.r.QueryRowContext(ctx, `SELECT generation FROM kb_state`).Scan(&g); err != nil {
		return 0, fmt.Errorf("store: knowledge base generation: %w", err)
	}
	return g, nil
}

// deleteDocument removes the documents matching where, their passages and
// their index rows.
func deleteDocument(ctx context.Context, tx *sql.Tx, where string, args ...any) error {
	docs := `SELECT id FROM kb_documents WHERE ` + where
	if err := bumpGeneration(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM kb_fts WHERE rowid IN (SELECT id FROM kb_chunks WHERE doc_id IN (`+docs+`))`, args...); err != nil {
		return err
	}
	// kb_chunks go by ON DELETE CASCADE.
	_, err := tx.ExecContext(ctx, `DELETE FROM kb_documents WHERE `+where, args...)
	return err
}

// Document finds the document of scope with source.
func (db *DB) Document(ctx context.Context, scope, source string) (kb.Document, bool, error) {
	return db.findDocument(ctx, `d.scope = ? AND d.source = ?`, scope, source)
}

// DocumentByHash finds a document of scope with this content hash.
func (db *DB) DocumentByHash(ctx context.Context, scope, hash string) (kb.Document, bool, error) {
	return db.findDocument(ctx, `d.scope = ? AND d.hash = ?`, scope, hash)
}

func (db *DB) findDocument(ctx context.Context, where string, args ...any) (kb.Document, bool, error) {
	d, err := scanDocument(db.r.QueryRowContext(ctx, `SELECT `+docColumns+` FROM kb_documents d WHERE `+where+` LIMIT 1`, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return kb.Document{}, false, nil
	}
	if err != nil {
		return kb.Document{}, false, fmt.Errorf("store: find document: %w", err)
	}
	return d, true, nil
}

// DocumentByID finds a document by its ID.
func (db *DB) DocumentByID(ctx context.Context, id int64) (kb.Document, bool, error) {
	return db.findDocument(ctx, `d.id = ?`, id)
}

// Documents lists the documents of scopes, oldest first.
func (db *DB) Documents(ctx context.Context, scopes []string) ([]kb.Document, error) {
	in, args := inList(scopes)
	return db.listDocuments(ctx, `d.scope IN (`+in+`)`, args...)
}

// AllDocuments lists every scope's documents, oldest first.
func (db *DB) AllDocuments(ctx context.Context) ([]kb.Document, error) {
	return db.listDocuments(ctx, `1`)
}

func (db *DB) listDocuments(ctx context.Context, where string, args ...any) ([]kb.Document, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT `+docColumns+` FROM kb_documents d WHERE `+where+` ORDER BY d.added_at, d.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list documents: %w", err)
	}
	defer rows.Close()
	var out []kb.Document
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list documents: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list documents: %w", err)
	}
	return out, nil
}

// DeleteDocument removes a document with its passages. Removing one that
// is not there is not an error.
func (db *DB) DeleteDocument(ctx context.Context, id int64) error {
	if db.noFTS != nil {
		return db.noFTS
	}
	if err := db.write(ctx, func(tx *sql.Tx) error { return deleteDocument(ctx, tx, `id = ?`, id) }); err != nil {
		return fmt.Errorf("store: delete document %d: %w", id, err)
	}
	return nil
}

// ScopeBytes is the size of scope's documents together.
func (db *DB) ScopeBytes(ctx context.Context, scope string) (int64, error) {
	var n int64
	if err := db.r.QueryRowContext(ctx, `SELECT coalesce(sum(bytes), 0) FROM kb_documents WHERE scope = ?`, scope).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: scope size: %w", err)
	}
	return n, nil
}

// passageColumns are what a Result needs, in scanPassage's order.
const passageColumns = `c.id, c.doc_id, d.source, c.start_line, c.end_line, c.text`

func scanPassage(rows *sql.Rows, extra ...any) (kb.Result, error) {
	var r kb.Result
	err := rows.Scan(append([]any{&r.ChunkID, &r.DocID, &r.Source, &r.Start, &r.End, &r.Text}, extra...)...)
	return r, err
}

// KeywordSearch runs match over the passages of scopes, best first by
// BM25 (body counts most; the single CJK characters and the document's
// name less). The scope filter is part of the FTS5 query itself — each
// passage's scope is a token of the index's scope column — so the n best
// are the n best of what the asker may see, and the index never ranks
// passages of other scopes: on 100k passages, joining the ranked matches
// to kb_chunks to filter them cost four times the ranking.
func (db *DB) KeywordSearch(ctx context.Context, scopes []string, match string, n int) ([]kb.Result, error) {
	if db.noFTS != nil {
		return nil, db.noFTS
	}
	if len(scopes) == 0 || match == "" {
		return nil, nil
	}
	tokens := make([]string, len(scopes))
	for i, s := range scopes {
		tokens[i] = scopeToken(s)
	}
	query := "{body uni head} : (" + match + ") AND scope : (" + strings.Join(tokens, " OR ") + ")"
	rows, err := db.r.QueryContext(ctx, `
		SELECT `+passageColumns+`, f.rank
		FROM (SELECT rowid, bm25(kb_fts, 1.0, 0.5, 0.3, 0.0) AS rank FROM kb_fts
		      WHERE kb_fts MATCH ? ORDER BY rank, rowid LIMIT ?) AS f
		JOIN kb_chunks c ON c.id = f.rowid
		JOIN kb_documents d ON d.id = c.doc_id
		ORDER BY f.rank, c.id`, query, n)
	if err != nil {
		return nil, fmt.Errorf("store: keyword search: %w", err)
	}
	defer rows.Close()
	var out []kb.Result
	for rows.Next() {
		var rank float64
		r, err := scanPassage(rows, &rank)
		if err != nil {
			return nil, fmt.Errorf("store: keyword search: %w", err)
		}
		r.Score = -rank // bm25() is lower for better matches
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: keyword search: %w", err)
	}
	return out, nil
}

// scopeToken is a scope key as one token of the index's scope column:
// letters and digits only, so no tokenizer splits or folds it, and no
// two keys share one.
func scopeToken(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "scope" + hex.EncodeToString(sum[:12])
}

// ScanVectors calls fn with each passage that has a vector for model, with
// its scope, decoding into one reused buffer.
func (db *DB) ScanVectors(ctx context.Context, model string, fn func(id int64, scope string, vec []float32)) error {
	rows, err := db.r.QueryContext(ctx, `
		SELECT c.id, c.scope, v.vec FROM kb_chunks c
		JOIN kb_vectors v ON v.model = ? AND v.hash = c.hash`, model)
	if err != nil {
		return fmt.Errorf("store: scan vectors: %w", err)
	}
	defer rows.Close()
	var buf []float32
	var raw sql.RawBytes
	var scope string
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id, &scope, &raw); err != nil {
			return fmt.Errorf("store: scan vectors: %w", err)
		}
		buf = rowdata.DecodeVector(buf[:0], raw)
		fn(id, scope, buf)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: scan vectors: %w", err)
	}
	return nil
}

// Passages loads passages by ID.
func (db *DB) Passages(ctx context.Context, ids []int64) ([]kb.Result, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	in, args := inList(ids)
	rows, err := db.r.QueryContext(ctx, `SELECT `+passageColumns+` FROM kb_chunks c JOIN kb_documents d ON d.id = c.doc_id WHERE c.id IN (`+in+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: load passages: %w", err)
	}
	defer rows.Close()
	var out []kb.Result
	for rows.Next() {
		r, err := scanPassage(rows)
		if err != nil {
			return nil, fmt.Errorf("store: load passages: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: load passages: %w", err)
	}
	return out, nil
}

// MissingVectors lists up to n distinct passage texts with no vector for
// model.
func (db *DB) MissingVectors(ctx context.Context, model string, n int) ([]kb.Pending, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT c.hash, min(c.text) FROM kb_chunks c
		WHERE NOT EXISTS (SELECT 1 FROM kb_vectors v WHERE v.model = ? AND v.hash = c.hash)
		GROUP BY c.hash LIMIT ?`, model, n)
	if err != nil {
		return nil, fmt.Errorf("store: missing vectors: %w", err)
	}
	defer rows.Close()
	var out []kb.Pending
	for rows.Next() {
		var p kb.Pending
		if err := rows.Scan(&p.Hash, &p.Text); err != nil {
			return nil, fmt.Errorf("store: missing vectors: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: missing vectors: %w", err)
	}
	return out, nil
}

// PutVectors stores vectors for model, replacing any for the same text.
func (db *DB) PutVectors(ctx context.Context, model string, vecs []kb.Vector) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		if err := bumpGeneration(ctx, tx); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO kb_vectors (model, hash, vec) VALUES (?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, v := range vecs {
			if _, err := stmt.ExecContext(ctx, model, v.Hash, rowdata.EncodeVector(v.Vec)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: put vectors: %w", err)
	}
	return nil
}

// DropVectors removes the vectors of every model but keep.
func (db *DB) DropVectors(ctx context.Context, keep string) (int64, error) {
	var n int64
	err := db.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM kb_vectors WHERE model <> ?`, keep)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		return bumpGeneration(ctx, tx)
	})
	if err != nil {
		return 0, fmt.Errorf("store: drop vectors: %w", err)
	}
	return n, nil
}

// inList is "?, ?, …" for values, and values as query arguments. An empty
// list matches nothing (NULL is in no list).
func inList[T any](values []T) (string, []any) {
	if len(values) == 0 {
		return "NULL", nil
	}
	args := make([]any, len(values))
	for i, v := range values {
		args[i] = v
	}
	return strings.TrimSuffix(strings.Repeat("?, ", len(values)), ", "), args
}
