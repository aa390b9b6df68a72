package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

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

// encodeVector is a vector's storage form: little-endian float32s.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVector appends the float32s stored in b to dst.
func decodeVector(dst []float32, b []byte) []float32 {
	for i := 0; i+4 <= len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return dst
}
