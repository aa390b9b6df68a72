package kb

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// vecStore serves vectors from memory: only what the index reads.
type vecStore struct {
	Store // nil: any other call panics
	gen   int64
	rows  []vecRow
	scans int
}

type vecRow struct {
	id    int64
	scope string
	vec   []float32
}

func (s *vecStore) Generation(context.Context) (int64, error) { return s.gen, nil }

func (s *vecStore) ScanVectors(_ context.Context, _ string, fn func(int64, string, []float32)) error {
	s.scans++
	for _, r := range s.rows {
		fn(r.id, r.scope, r.vec)
	}
	return nil
}

func randomUnit(rng *rand.Rand, d int) []float32 {
	v := make([]float32, d)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return Normalize(v)
}

// Quantising to bytes keeps the ranking: the 20 best by the index are the
// 20 best by exact float32 dot products, but for near ties. The index is
// large enough to be scanned in parts, whose bests are merged.
func TestVectorIndexRanksAsFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	st := &vecStore{}
	for i := range parallelScan + 5000 {
		st.rows = append(st.rows, vecRow{id: int64(i + 1), scope: "operator", vec: randomUnit(rng, 128)})
	}
	var x vectorIndex
	for range 20 {
		q := randomUnit(rng, 128)
		got, err := x.search(t.Context(), st, "m", []string{"operator"}, q, 20)
		if err != nil {
			t.Fatal(err)
		}
		exact := &topN{n: 20}
		for _, r := range st.rows {
			exact.offer(r.id, dot(q, r.vec))
		}
		want := exact.sorted()
		common := 0
		for _, g := range got {
			if slices.ContainsFunc(want, func(w scored) bool { return w.id == g.id }) {
				common++
			}
		}
		top3 := slices.ContainsFunc(got[:3], func(g scored) bool { return g.id == want[0].id })
		if common < 18 || !top3 {
			t.Fatalf("index top-20 shares %d with the exact top-20; the exact best in its top 3: %v", common, top3)
		}
	}
	if st.scans != 1 {
		t.Fatalf("the store was scanned %d times for one generation", st.scans)
	}
}

// Only the asked scopes are scored, and a new generation is read again.
func TestVectorIndexScopesAndGenerations(t *testing.T) {
	st := &vecStore{rows: []vecRow{
		{1, "operator", []float32{1, 0}},
		{2, "space:slack:T2", []float32{0.99, 0.1}},
		{3, "person:slack:U1", []float32{0, 1}},
	}}
	var x vectorIndex
	q := []float32{1, 0}
	ids := func(scopes ...string) []int64 {
		t.Helper()
		got, err := x.search(t.Context(), st, "m", scopes, q, 5)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, g := range got {
			out = append(out, g.id)
		}
		return out
	}
	if got := ids("operator", "space:slack:T1"); !slices.Equal(got, []int64{1}) {
		t.Fatalf("T1 sees %v, want only the operator's passage", got)
	}
	if got := ids("operator", "space:slack:T2", "person:slack:U1"); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("got %v", got)
	}
	st.rows = st.rows[1:]
	if got := ids("operator"); len(got) != 1 {
		t.Fatalf("without a new generation the copy is kept: %v", got)
	}
	st.gen++
	if got := ids("operator"); len(got) != 0 {
		t.Fatalf("after a change the removed passage is still found: %v", got)
	}
}

// dot is the dot product of two vectors of the same length.
func dot(a, b []float32) float32 {
	var s float32
	b = b[:len(a)]
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
