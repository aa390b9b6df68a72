//go:build !sqlite_fts5

package store_test

import (
	"errors"
	"testing"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store"
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

// Without FTS5 conversations are stored as ever; searching them says it
// is off.
func TestNoMessageIndex(t *testing.T) {
	db := newDB(t)
	sid, err := db.SessionFor(t.Context(), slackThread)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AppendMessages(t.Context(), sid, llm.Message{Role: llm.RoleUser, Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	if err := db.ReplaceMessages(t.Context(), sid, []llm.Message{{Role: llm.RoleAssistant, Text: "summary"}}); err != nil {
		t.Fatalf("a rewrite deletes messages, with no index to keep: %v", err)
	}
	if _, err := db.SearchMessages(t.Context(), store.MessageSearch{Query: "hello"}); !errors.Is(err, store.ErrNoMessageIndex) {
		t.Fatalf("SearchMessages = %v, want ErrNoMessageIndex", err)
	}
}
