//go:build !sqlite_fts5

package store_test

import (
	"errors"
	"testing"

	"github.com/parleybot/parley/agent/kb"
)

// Without FTS5 the database opens and works; the knowledge base says it
// is off and how to turn it on.
func TestNoKeywordIndex(t *testing.T) {
	db := newDB(t)
	if err := db.KeywordIndex(); !errors.Is(err, kb.ErrNoKeywordIndex) {
		t.Fatalf("KeywordIndex = %v, want ErrNoKeywordIndex", err)
	}
	b := kb.New(kb.Config{Store: db})
	if _, err := b.Ingest(t.Context(), kb.Document{Scope: "operator", Source: "a"}, "text"); !errors.Is(err, kb.ErrNoKeywordIndex) {
		t.Fatalf("Ingest = %v, want ErrNoKeywordIndex", err)
	}
	if err := db.Set(t.Context(), "k", "v"); err != nil {
		t.Fatalf("the rest of the store works: %v", err)
	}
}
