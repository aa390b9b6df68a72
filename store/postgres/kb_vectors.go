package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// The knowledge base's vectors: bytea, scanned into the in-memory index
// (vectors.go says why not pgvector).

// ScanVectors calls fn with each passage that has a vector for model, with
// its scope, decoding into one reused buffer: vec is valid only during the
// call, as with store.
func (db *DB) ScanVectors(ctx context.Context, model string, fn func(id int64, scope string, vec []float32)) error {
	rows, err := db.pool.Query(ctx, `
		SELECT c.id, c.scope, v.vec FROM kb_chunks c
		JOIN kb_vectors v ON v.model = $1 AND v.hash = c.hash`, model)
	if err != nil {
		return fmt.Errorf("postgres: scan vectors: %w", err)
	}
	var (
		buf   []float32
		raw   []byte
		id    int64
		scope string
	)
	if _, err := pgx.ForEachRow(rows, []any{&id, &scope, &raw}, func() error {
		buf = rowdata.DecodeVector(buf[:0], raw)
		fn(id, scope, buf)
		return nil
	}); err != nil {
		return fmt.Errorf("postgres: scan vectors: %w", err)
	}
	return nil
}

// MissingVectors lists up to n distinct passage texts with no vector for
// model.
func (db *DB) MissingVectors(ctx context.Context, model string, n int) ([]kb.Pending, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT c.hash, min(c.text) FROM kb_chunks c
		WHERE NOT EXISTS (SELECT 1 FROM kb_vectors v WHERE v.model = $1 AND v.hash = c.hash)
		GROUP BY c.hash LIMIT $2`, model, sqlLimit(n))
	if err != nil {
		return nil, fmt.Errorf("postgres: missing vectors: %w", err)
	}
	out, err := collect(rows, func(row rowScanner) (kb.Pending, error) {
		var p kb.Pending
		err := row.Scan(&p.Hash, &p.Text)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: missing vectors: %w", err)
	}
	return out, nil
}

// PutVectors stores vectors for model, replacing any for the same text.
func (db *DB) PutVectors(ctx context.Context, model string, vecs []kb.Vector) error {
	err := db.tx(ctx, func(tx pgx.Tx) error {
		if err := bumpGeneration(ctx, tx); err != nil {
			return err
		}
		b := &pgx.Batch{}
		for _, v := range vecs {
			b.Queue(`
				INSERT INTO kb_vectors (model, hash, vec) VALUES ($1, $2, $3)
				ON CONFLICT (model, hash) DO UPDATE SET vec = excluded.vec`, model, v.Hash, rowdata.EncodeVector(v.Vec))
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return fmt.Errorf("postgres: put vectors: %w", err)
	}
	return nil
}

// DropVectors removes the vectors of every model but keep, and reports how
// many.
func (db *DB) DropVectors(ctx context.Context, keep string) (int64, error) {
	var n int64
	err := db.tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM kb_vectors WHERE model <> $1`, keep)
		if err != nil {
			return err
		}
		if n = tag.RowsAffected(); n == 0 {
			return nil
		}
		return bumpGeneration(ctx, tx)
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: drop vectors: %w", err)
	}
	return n, nil
}
