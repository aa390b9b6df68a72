//go:build sqlite_fts5

package store_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/kb"
)

// TestKBEval scores keyword-only retrieval on the labelled set
// (agent/kb/testdata/eval) at three passage sizes, and holds the default
// size to the figures it reached: a change that makes retrieval worse
// fails here. `go test -tags sqlite_fts5 -run KBEval -v ./store/` prints
// the reports; `parley kb eval` does the same with any configured
// embedding model.
func TestKBEval(t *testing.T) {
	set, err := kb.LoadEvalSet("../agent/kb/testdata/eval/questions.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, lines := range []int{20, 40, 80} {
		t.Run(fmt.Sprintf("lines=%d", lines), func(t *testing.T) {
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
				t.Errorf("recall@5 %.3f, MRR %.3f: below what the default reached (0.85, 0.75)", r.Recall, r.MRR)
			}
		})
	}
}
