//go:build sqlite_fts5

package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/store"
)

// kbOver is a keyword-only knowledge base over a fresh database.
func kbOver(t testing.TB, db *store.DB) *kb.Base {
	t.Helper()
	if err := db.KeywordIndex(); err != nil {
		t.Fatalf("KeywordIndex: %v", err)
	}
	return kb.New(kb.Config{Store: db, Chunking: kb.ChunkOptions{Lines: 4, Overlap: 1}})
}

func ingest(t testing.TB, b *kb.Base, scope, source, text string) kb.Ingested {
	t.Helper()
	got, err := b.Ingest(context.Background(), kb.Document{Scope: scope, Source: source, Kind: "text", AddedBy: "operator"}, text)
	if err != nil {
		t.Fatalf("Ingest %s: %v", source, err)
	}
	return got
}

// cites is a search's results as "source:start-end".
func cites(rs []kb.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprintf("%s:%d-%d", r.Source, r.Start, r.End)
	}
	return out
}

// FuzzKeywordSearch: whatever a person asks, the query FTS5 gets is valid.
// The knowledge base's behaviour over any store is storetest's (KB).
func FuzzKeywordSearch(f *testing.F) {
	db := newDB(f)
	b := kbOver(f, db)
	ingest(f, b, "operator", "a.md", "alpha beta\n设备 成语接龙\n")
	for _, s := range []string{"alpha", `"`, "NEAR(a b", "a AND", "*", "设", "x:y", "^a", "a + b", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if _, err := b.Search(context.Background(), []string{"operator"}, q, 5); err != nil {
			t.Fatalf("Search(%q): %v", q, err)
		}
	})
}
