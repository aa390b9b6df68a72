package main

import (
	"database/sql"
	"fmt"
)

// Variant C: sqlite-vec's vec0 virtual table, brute-force KNN in C.
//
// Cp keeps the scope as a PARTITION KEY: vec0 stores each scope's vectors
// in chunks of their own and a KNN query reads only the partitions asked
// for. In v0.1.6 `scope IN (...)` on a partition key is run once per value
// and returns k rows PER SCOPE, unordered across scopes (and vec0 refuses
// an outer ORDER BY ... LIMIT next to k, even through a flattened
// subquery), so the query materialises the per-scope results and takes
// the global top k from them.
//
// Cm keeps the scope as a metadata column: vec0 supports `IN (...)` on a
// TEXT metadata column (sqlite3_vtab_in) and returns the global top k, but
// it reads every chunk of the table and filters inside it.
//
// Both use vec0's default metric, L2: for unit vectors d² = 2 - 2·cos, so
// the order is cosine's (and L2 is the only float metric with an AVX path).

func vec0DDL(variant string, dim int) string {
	switch variant {
	case "Cp":
		return fmt.Sprintf(`CREATE VIRTUAL TABLE kb_vec USING vec0(chunk_id INTEGER PRIMARY KEY, scope TEXT PARTITION KEY, embedding float[%d])`, dim)
	case "Cm":
		return fmt.Sprintf(`CREATE VIRTUAL TABLE kb_vec USING vec0(chunk_id INTEGER PRIMARY KEY, scope TEXT, embedding float[%d])`, dim)
	}
	panic(variant)
}

func vec0Query(variant string, k int) string {
	switch variant {
	case "Cp":
		return fmt.Sprintf(`WITH r AS MATERIALIZED (SELECT chunk_id, distance FROM kb_vec WHERE embedding MATCH ? AND k = %d AND scope IN (?,?,?)) SELECT chunk_id, distance FROM r ORDER BY distance LIMIT %d`, k, k)
	case "Cm":
		return fmt.Sprintf(`SELECT chunk_id, distance FROM kb_vec WHERE embedding MATCH ? AND k = %d AND scope IN (?,?,?)`, k)
	}
	panic(variant)
}

type vecSearcher struct {
	stmt *sql.Stmt
	buf  []byte
}

func newVecSearcher(db *sql.DB, variant string, dim, k int) (*vecSearcher, error) {
	st, err := db.Prepare(vec0Query(variant, k))
	if err != nil {
		return nil, err
	}
	return &vecSearcher{stmt: st, buf: make([]byte, 4*dim)}, nil
}

func (v *vecSearcher) search(q query) ([]hit, error) {
	rows, err := v.stmt.Query(encode(v.buf, q.Vec), q.Scopes[0], q.Scopes[1], q.Scopes[2])
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []hit
	for rows.Next() {
		var id int64
		var d float64
		if err := rows.Scan(&id, &d); err != nil {
			return nil, err
		}
		out = append(out, hit{ID: id, Score: float32(1 - d*d/2)})
	}
	return out, rows.Err()
}
