package postgres_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/kb"
)

// TestKBEval scores keyword-only retrieval on the labelled set
// (agent/kb/testdata/eval) as store's TestKBEval does on SQLite, and holds
// the default passage size to the same floor: ts_rank_cd must find what
// BM25 finds about as well. -v prints the reports.
func TestKBEval(t *testing.T) {
	t.Parallel()
	set, err := kb.LoadEvalSet("../../agent/kb/testdata/eval/questions.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, lines := range []int{20, 40, 80} {
		t.Run(fmt.Sprintf("lines=%d", lines), func(t *testing.T) {
			t.Parallel()
			b := kb.New(kb.Config{Store: newDB(t), Chunking: kb.ChunkOptions{Lines: lines, Overlap: min(5, lines/4)}})
			if err := b.IngestEvalSet(t.Context(), set, "operator"); err != nil {
				t.Fatal(err)
			}
			r, err := kb.Evaluate(t.Context(), b.In("operator"), set, 5)
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			r.Format(&out)
			t.Logf("keyword-only, %d-line passages:\n%s", lines, out.String())
			if lines == 40 && (r.Recall < 0.85 || r.MRR < 0.75) {
				t.Errorf("recall@5 %.3f, MRR %.3f: below what SQLite's default reached (0.85, 0.75)", r.Recall, r.MRR)
			}
		})
	}
}
