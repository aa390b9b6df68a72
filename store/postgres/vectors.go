package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// VectorStorage says how the knowledge base's vectors are kept. They are
// always bytea (little-endian float32s, as in SQLite) and searched the way
// store's are: ScanVectors feeds the in-memory index (agent/kb/vecindex.go).
// PgvectorAvailable records whether the server could load the vector
// extension, which a later version could search with in SQL.
type VectorStorage struct {
	PgvectorAvailable bool
}

func (v VectorStorage) String() string {
	if v.PgvectorAvailable {
		return "bytea, scanned into memory (pgvector is available but unused)"
	}
	return "bytea, scanned into memory (no pgvector on this server)"
}

// Vectors reports how vectors are kept, as Open found it.
func (db *DB) Vectors() VectorStorage { return db.vectors }

// detectVectors asks the server whether the vector extension exists.
func detectVectors(ctx context.Context, pool *pgxpool.Pool) (VectorStorage, error) {
	var v VectorStorage
	err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`).
		Scan(&v.PgvectorAvailable)
	if err != nil {
		return v, fmt.Errorf("detect pgvector: %w", err)
	}
	return v, nil
}
