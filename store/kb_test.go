//go:build sqlite_fts5

package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/store/storetest"
)

// TestKeywordSearchRanksByBM25 holds SQLite's ranking: FTS5's BM25 with
// the body weighted over the single characters and the document's name,
// best first, Score its negation, ties by passage. What any engine must
// rank is the suite's (storetest: KnowledgeBase).
func TestKeywordSearchRanksByBM25(t *testing.T) {
	db := newDB(t)
	b := storetest.KeywordBase(t, db)
	storetest.Ingest(t, b, "operator", "sparse.md", "a long line that mentions the canary once among many other words here\n")
	storetest.Ingest(t, b, "operator", "dense.md", "canary canary canary\n")
	storetest.Ingest(t, b, "operator", "canary.md", "the name holds it; the text does not\n")
	storetest.Ingest(t, b, "operator", "twin.md", "canary canary canary!\n") // not a duplicate: another hash
	got, err := db.KeywordSearch(t.Context(), []string{"operator"}, kb.MatchQuery("canary"), 10)
	if err != nil {
		t.Fatal(err)
	}
	if c, want := storetest.Cites(got), []string{"dense.md:1-1", "twin.md:1-1", "sparse.md:1-1", "canary.md:1-1"}; !slices.Equal(c, want) {
		t.Fatalf("ranked %v, want %v", c, want)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Score > got[i-1].Score || got[i].Score <= 0 {
			t.Errorf("scores %v: want positive, best first", got)
		}
	}
	if got[0].Score != got[1].Score {
		t.Errorf("the same text in two documents scores %v and %v", got[0].Score, got[1].Score)
	}
}

// FuzzKeywordSearch: whatever a person asks, the query FTS5 gets is valid.
// The knowledge base's behaviour over any store is storetest's (KB).
func FuzzKeywordSearch(f *testing.F) {
	db := newDB(f)
	b := storetest.KeywordBase(f, db)
	storetest.Ingest(f, b, "operator", "a.md", "alpha beta\n设备 成语接龙\n")
	for _, s := range []string{"alpha", `"`, "NEAR(a b", "a AND", "*", "设", "x:y", "^a", "a + b", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if _, err := b.Search(context.Background(), []string{"operator"}, q, 5); err != nil {
			t.Fatalf("Search(%q): %v", q, err)
		}
	})
}
