package kb

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"
)

// The vector pass: passages' embeddings are stored normalised, so a
// passage's cosine similarity to the query is a dot product, and a search
// is one scan of the scopes' vectors (vecindex.go) keeping the best few in
// a heap (docs/kb-vectors.md says why a scan and not an index).

// vectorPass ranks the passages of scopes by similarity to query, best
// first, at most n.
func (b *Base) vectorPass(ctx context.Context, scopes []string, query string, n int) ([]Result, error) {
	vecs, err := b.cfg.Embedder.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("embed the query: %w", err)
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("embed the query: got %d vectors for 1 text", len(vecs))
	}
	ranked, err := b.vectors.search(ctx, b.cfg.Store, b.cfg.EmbeddingModel, scopes, Normalize(vecs[0]), n)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(ranked))
	for i, s := range ranked {
		ids[i] = s.id
	}
	passages, err := b.cfg.Store.Passages(ctx, ids)
	if err != nil {
		return nil, err
	}
	order := make(map[int64]int, len(ids))
	for i, id := range ids {
		order[id] = i
	}
	slices.SortFunc(passages, func(a, b Result) int { return cmp.Compare(order[a.ChunkID], order[b.ChunkID]) })
	return passages, nil
}

// Normalize scales v to length 1 in place and returns it; a zero vector
// stays zero.
func Normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return v
}

type scored struct {
	id    int64
	score float32
}

// topN keeps the n best scores seen: a min-heap whose root is the weakest
// kept, so each offer costs O(log n) and memory stays n.
type topN struct {
	n int
	h scoreHeap
}

func (t *topN) offer(id int64, s float32) {
	switch {
	case len(t.h) < t.n:
		heap.Push(&t.h, scored{id, s})
	case s > t.h[0].score:
		t.h[0] = scored{id, s}
		heap.Fix(&t.h, 0)
	}
}

// sorted is the kept scores, best first.
func (t *topN) sorted() []scored {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b scored) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.id, b.id)) })
	return out
}

type scoreHeap []scored

func (h scoreHeap) Len() int           { return len(h) }
func (h scoreHeap) Less(i, j int) bool { return h[i].score < h[j].score }
func (h scoreHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scoreHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *scoreHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
