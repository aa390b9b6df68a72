package kb

import (
	"cmp"
	"slices"
)

// Passage names one passage: its document and first line. Results are
// deduplicated on it.
type Passage struct {
	Doc   string
	Start int
}

// Ranking is one retrieval pass's results, best first, with the pass's
// weight in the fusion.
type Ranking struct {
	Weight float64
	Hits   []Passage
	// Keep is how many of this pass's best hits the fused top-K always
	// holds. The keyword pass keeps its best literal match this way:
	// weights that favour the vector pass would otherwise push an exact
	// string (an error code, a canary word, a multi-word name) below
	// passages that are merely similar.
	Keep int
}

// Scored is a fused result.
type Scored struct {
	Passage
	Score float64
}

// FuseOptions tune Reciprocal Rank Fusion.
type FuseOptions struct {
	// K damps the lead of the first ranks: score = Σ weight / (K + rank),
	// rank from 1 (default 60).
	K float64
	// TopK is how many results to return (default 5).
	TopK int
	// MinScore drops results scoring below it (kept ones included).
	MinScore float64
}

// Fuse merges rankings by Reciprocal Rank Fusion. A passage a ranking
// lists twice counts once, at its best rank; the fused results are unique
// by (document, start line), best first, ties broken by document and line
// so the order is stable.
func Fuse(rankings []Ranking, o FuseOptions) []Scored {
	if o.K <= 0 {
		o.K = 60
	}
	if o.TopK <= 0 {
		o.TopK = 5
	}
	scores := map[Passage]float64{}
	for _, r := range rankings {
		seen := map[Passage]bool{}
		rank := 0
		for _, p := range r.Hits {
			if seen[p] {
				continue
			}
			seen[p] = true
			rank++
			scores[p] += r.Weight / (o.K + float64(rank))
		}
	}
	all := make([]Scored, 0, len(scores))
	for p, s := range scores {
		if s >= o.MinScore {
			all = append(all, Scored{Passage: p, Score: s})
		}
	}
	slices.SortFunc(all, func(a, b Scored) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Doc, b.Doc), cmp.Compare(a.Start, b.Start))
	})
	top := all[:min(o.TopK, len(all))]
	for _, r := range rankings {
		for _, p := range firstUnique(r.Hits, r.Keep) {
			if slices.ContainsFunc(top, func(s Scored) bool { return s.Passage == p }) {
				continue
			}
			i := slices.IndexFunc(all, func(s Scored) bool { return s.Passage == p })
			if i < 0 {
				continue // under MinScore
			}
			if len(top) < o.TopK {
				top = append(top, all[i])
			} else {
				top[len(top)-1] = all[i] // replaces the weakest
			}
			slices.SortFunc(top, func(a, b Scored) int {
				return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Doc, b.Doc), cmp.Compare(a.Start, b.Start))
			})
		}
	}
	return slices.Clone(top)
}

// firstUnique is the first n distinct passages of hits.
func firstUnique(hits []Passage, n int) []Passage {
	var out []Passage
	for _, p := range hits {
		if len(out) == n {
			break
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
