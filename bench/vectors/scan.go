package main

import (
	"cmp"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// dot is the dot product of two equal-length vectors, four accumulators
// so the loop is not one long dependency chain.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// dotBytes is dot(q, decode(b)) for a little-endian float32 BLOB, decoded
// as it goes: no buffer, no allocation, no unsafe.
func dotBytes(q []float32, b []byte) float32 {
	b = b[:4*len(q)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		w := b[4*i : 4*i+16]
		s0 += q[i] * math.Float32frombits(binary.LittleEndian.Uint32(w[0:]))
		s1 += q[i+1] * math.Float32frombits(binary.LittleEndian.Uint32(w[4:]))
		s2 += q[i+2] * math.Float32frombits(binary.LittleEndian.Uint32(w[8:]))
		s3 += q[i+3] * math.Float32frombits(binary.LittleEndian.Uint32(w[12:]))
	}
	for ; i < len(q); i++ {
		s0 += q[i] * math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return s0 + s1 + s2 + s3
}

type hit struct {
	ID    int64
	Score float32 // cosine similarity
}

// topK keeps the k best hits in a min-heap on score.
type topK struct {
	k int
	h []hit
}

func newTopK(k int) *topK { return &topK{k: k, h: make([]hit, 0, k)} }

func (t *topK) reset() { t.h = t.h[:0] }

func less(a, b hit) bool { return a.Score < b.Score || a.Score == b.Score && a.ID > b.ID }

func (t *topK) push(id int64, s float32) {
	if len(t.h) < t.k {
		t.h = append(t.h, hit{id, s})
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !less(t.h[i], t.h[p]) {
				break
			}
			t.h[i], t.h[p] = t.h[p], t.h[i]
			i = p
		}
		return
	}
	if !less(t.h[0], hit{id, s}) {
		return
	}
	t.h[0] = hit{id, s}
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(t.h) && less(t.h[l], t.h[m]) {
			m = l
		}
		if r := l + 1; r < len(t.h) && less(t.h[r], t.h[m]) {
			m = r
		}
		if m == i {
			break
		}
		t.h[i], t.h[m] = t.h[m], t.h[i]
		i = m
	}
}

// sorted is the hits, best first.
func (t *topK) sorted() []hit {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// Variant A: the scan reads every vector in the asker's scopes from SQLite.
const sqlScanA = `SELECT c.id, v.vec FROM kb_chunks c JOIN kb_vectors v ON v.model = ? AND v.hash = c.hash WHERE c.scope IN (?,?,?)`

type sqlScanner struct {
	stmt *sql.Stmt
	top  *topK
	rows int
}

func newSQLScanner(db *sql.DB, k int) (*sqlScanner, error) {
	st, err := db.Prepare(sqlScanA)
	if err != nil {
		return nil, err
	}
	return &sqlScanner{stmt: st, top: newTopK(k)}, nil
}

func (s *sqlScanner) search(model string, q query) ([]hit, error) {
	s.top.reset()
	rows, err := s.stmt.Query(model, q.Scopes[0], q.Scopes[1], q.Scopes[2])
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var id int64
	var raw sql.RawBytes // no second copy (the driver already copies once per row)
	for rows.Next() {
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, err
		}
		if len(raw) != 4*len(q.Vec) {
			return nil, fmt.Errorf("chunk %d: vector of %d bytes, want %d", id, len(raw), 4*len(q.Vec))
		}
		s.top.push(id, dotBytes(q.Vec, raw))
		s.rows++
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return s.top.sorted(), nil
}

// Variant B: every vector of the model held in memory, one slab per scope.
type slab struct {
	ids  []int64
	vecs []float32 // len(ids)*dim, row-major
}

type cache struct {
	dim    int
	scopes map[string]*slab
	top    *topK
}

// loadCache reads every vector of model, sized exactly up front (a count
// per scope first) so the slabs hold no spare capacity.
func loadCache(db *sql.DB, model string, dim, k int) (*cache, error) {
	c := &cache{dim: dim, scopes: map[string]*slab{}, top: newTopK(k)}
	rows, err := db.Query(`SELECT c.scope, count(*) FROM kb_chunks c JOIN kb_vectors v ON v.model = ? AND v.hash = c.hash GROUP BY c.scope`, model)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return nil, err
		}
		c.scopes[s] = &slab{ids: make([]int64, 0, n), vecs: make([]float32, 0, n*dim)}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = db.Query(`SELECT c.scope, c.id, v.vec FROM kb_chunks c JOIN kb_vectors v ON v.model = ? AND v.hash = c.hash`, model)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var scope sql.RawBytes
	var id int64
	var raw sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&scope, &id, &raw); err != nil {
			return nil, err
		}
		if len(raw) != 4*dim {
			return nil, fmt.Errorf("chunk %d: vector of %d bytes, want %d", id, len(raw), 4*dim)
		}
		sl := c.scopes[string(scope)] // no allocation for a map lookup
		sl.ids = append(sl.ids, id)
		for j := range dim {
			sl.vecs = append(sl.vecs, math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:])))
		}
	}
	return c, rows.Err()
}

func (c *cache) bytes() int64 {
	var n int64
	for _, s := range c.scopes {
		n += int64(cap(s.ids))*8 + int64(cap(s.vecs))*4
	}
	return n
}

func (c *cache) search(q query) []hit {
	c.top.reset()
	for _, key := range q.Scopes {
		s := c.scopes[key]
		if s == nil {
			continue
		}
		for i, id := range s.ids {
			c.top.push(id, dot(q.Vec, s.vecs[i*c.dim:(i+1)*c.dim]))
		}
	}
	return c.top.sorted()
}
