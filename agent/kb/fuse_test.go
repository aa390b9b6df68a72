package kb

import (
	"math"
	"testing"
)

func p(doc string, start int) Passage { return Passage{Doc: doc, Start: start} }

func TestFuseHandComputed(t *testing.T) {
	// K = 60. vector (w 0.6): A, B, C; keyword (w 0.4): C, D, C (C twice).
	got := Fuse([]Ranking{
		{Weight: 0.6, Hits: []Passage{p("a", 1), p("b", 1), p("c", 1)}},
		{Weight: 0.4, Hits: []Passage{p("c", 1), p("d", 1), p("c", 1)}},
	}, FuseOptions{TopK: 10})
	want := []Scored{
		{p("c", 1), 0.6/63 + 0.4/61}, // 0.016081
		{p("a", 1), 0.6 / 61},        // 0.009836
		{p("b", 1), 0.6 / 62},        // 0.009677
		{p("d", 1), 0.4 / 62},        // 0.006452
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i].Passage != want[i].Passage || math.Abs(got[i].Score-want[i].Score) > 1e-12 {
			t.Errorf("%d: got %v, want %v", i, got[i], want[i])
		}
	}
}

// TestFuseKeepsTheBestLiteralMatch: the vector pass returns five similar
// passages, the keyword pass one exact match nobody else found. With
// weights favouring the vector pass the exact match would rank sixth and
// fall out of the top five; Keep holds it in.
func TestFuseKeepsTheBestLiteralMatch(t *testing.T) {
	vector := Ranking{Weight: 0.7, Hits: []Passage{p("v", 1), p("v", 2), p("v", 3), p("v", 4), p("v", 5)}}
	exact := p("runbook", 120)
	without := Fuse([]Ranking{vector, {Weight: 0.3, Hits: []Passage{exact}}}, FuseOptions{TopK: 5})
	for _, s := range without {
		if s.Passage == exact {
			t.Fatal("the premise fails: the exact match made the top five without Keep")
		}
	}
	with := Fuse([]Ranking{vector, {Weight: 0.3, Hits: []Passage{exact}, Keep: 1}}, FuseOptions{TopK: 5})
	found := false
	for _, s := range with {
		found = found || s.Passage == exact
	}
	if !found || len(with) != 5 {
		t.Fatalf("the best literal match is not in the top five: %v", with)
	}
}

func TestFuseMinScoreAndEmpty(t *testing.T) {
	if got := Fuse(nil, FuseOptions{}); len(got) != 0 {
		t.Fatalf("no rankings: %v", got)
	}
	got := Fuse([]Ranking{{Weight: 1, Hits: []Passage{p("a", 1), p("b", 1)}, Keep: 2}}, FuseOptions{MinScore: 1.0 / 61.5})
	if len(got) != 1 || got[0].Passage != p("a", 1) {
		t.Fatalf("MinScore (and Keep) let through %v", got)
	}
}
