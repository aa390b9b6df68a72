package kb

import (
	"context"
	"math"
	"runtime"
	"sync"
)

// The vector pass searches an in-memory copy of the vectors, quantised to
// one signed byte per dimension with a scale per vector: a quarter of
// float32's memory (1.5 KiB per passage at 1,536 dimensions), and a scan
// that is memory bandwidth, not SQLite paging. Reading 10k float32
// vectors of 1,536 dimensions back from SQLite took 124–310 ms per query
// on the 2-core CI machine; the index takes a few milliseconds
// (docs/kb-vectors.md). The copy is rebuilt, at the next search, whenever
// the store's generation says passages or vectors changed, in this
// process or another. The scope filter is applied during the scan, before
// anything is ranked.

// vectorIndex is the in-memory copy. Its zero value is empty.
type vectorIndex struct {
	mu sync.Mutex
	vectorData
}

// vectorData is what a rebuild replaces whole.
type vectorData struct {
	built  bool
	model  string
	gen    int64
	dims   int
	ids    []int64
	scopes []int32   // into names
	names  []string  // scope keys
	q      []int8    // len(ids) * dims
	scale  []float32 // per vector: value = q * scale
}

// search scores the passages of scopes against the normalised query,
// keeping the n best.
func (x *vectorIndex) search(ctx context.Context, st Store, model string, scopes []string, query []float32, n int) ([]scored, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	gen, err := st.Generation(ctx)
	if err != nil {
		return nil, err
	}
	if !x.built || x.gen != gen || x.model != model {
		if err := x.rebuild(ctx, st, model, gen); err != nil {
			return nil, err
		}
	}
	if len(query) != x.dims {
		return nil, nil // vectors of another length: the model changed under us
	}
	want := make([]bool, len(x.names))
	for i, name := range x.names {
		for _, s := range scopes {
			if s == name {
				want[i] = true
			}
		}
	}
	// Large indexes are scanned in parts, one per core, each keeping its
	// own best n; the parts' bests are merged.
	parts := 1
	if len(x.ids) >= parallelScan {
		parts = runtime.GOMAXPROCS(0)
	}
	bests := make([]topN, parts)
	var wg sync.WaitGroup
	per := (len(x.ids) + parts - 1) / parts
	for p := range parts {
		lo, hi := p*per, min((p+1)*per, len(x.ids))
		bests[p] = topN{n: n}
		wg.Go(func() { x.scan(&bests[p], want, query, lo, hi) })
	}
	wg.Wait()
	best := &topN{n: n}
	for _, b := range bests {
		for _, s := range b.h {
			best.offer(s.id, s.score)
		}
	}
	return best.sorted(), nil
}

// parallelScan is the index size from which a scan is split over cores:
// below it, starting goroutines costs more than it saves.
const parallelScan = 20_000

// scan scores vectors lo to hi of the wanted scopes into best.
func (x *vectorIndex) scan(best *topN, want []bool, query []float32, lo, hi int) {
	d := x.dims
	for i := lo; i < hi; i++ {
		if !want[x.scopes[i]] {
			continue
		}
		best.offer(x.ids[i], dotInt8(query, x.q[i*d:(i+1)*d])*x.scale[i])
	}
}

func (x *vectorIndex) rebuild(ctx context.Context, st Store, model string, gen int64) error {
	x.vectorData = vectorData{model: model, gen: gen}
	index := map[string]int32{}
	err := st.ScanVectors(ctx, model, func(id int64, scope string, v []float32) {
		if x.dims == 0 {
			x.dims = len(v)
		}
		if len(v) != x.dims {
			return // a vector of another length: not comparable
		}
		si, ok := index[scope]
		if !ok {
			si = int32(len(x.names))
			index[scope] = si
			x.names = append(x.names, scope)
		}
		x.ids = append(x.ids, id)
		x.scopes = append(x.scopes, si)
		x.scale = append(x.scale, quantize(&x.q, v))
	})
	if err != nil {
		x.vectorData = vectorData{}
		return err
	}
	x.built = true
	return nil
}

// quantize appends v as signed bytes to q and returns the scale that
// turns them back: the largest magnitude maps to 127.
func quantize(q *[]int8, v []float32) float32 {
	var m float32
	for _, f := range v {
		m = max(m, float32(math.Abs(float64(f))))
	}
	if m == 0 {
		*q = append(*q, make([]int8, len(v))...)
		return 0
	}
	s := 127 / m
	for _, f := range v {
		*q = append(*q, int8(math.Round(float64(f*s))))
	}
	return m / 127
}

// dotInt8 is the dot product of a float32 query and a quantised vector,
// before its scale.
func dotInt8(a []float32, b []int8) float32 {
	var s0, s1, s2, s3 float32
	b = b[:len(a)]
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * float32(b[i])
		s1 += a[i+1] * float32(b[i+1])
		s2 += a[i+2] * float32(b[i+2])
		s3 += a[i+3] * float32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += a[i] * float32(b[i])
	}
	return s0 + s1 + s2 + s3
}
