//go:build sqlite_fts5

package store_test

import (
	"context"
	"testing"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store"
)

// FuzzSearchMessages: whatever a person types, the query FTS5 gets is
// valid, and the snippet is the message's own text. How search behaves
// over any store is storetest's (Search).
func FuzzSearchMessages(f *testing.F) {
	db := newDB(f)
	sid, err := db.SessionFor(context.Background(), slackThread)
	if err != nil {
		f.Fatal(err)
	}
	const text = `alpha "beta" NEAR(x) col:y 设备 成语接龙 東京`
	if err := db.AppendMessages(context.Background(), sid, llm.Message{Role: llm.RoleUser, Text: text}); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"alpha", `"`, "NEAR(a b", "a AND", "*", "设", "x:y", "^a", "a + b", "\x00", "{body uni}: x", "AND OR NOT"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		hits, err := db.SearchMessages(context.Background(), store.MessageSearch{Query: q})
		if err != nil {
			t.Fatalf("SearchMessages(%q): %v", q, err)
		}
		for _, h := range hits {
			var got string
			for _, p := range h.Snippet {
				got += p.Text
			}
			if got != text {
				t.Fatalf("SearchMessages(%q): snippet %q, want the message", q, got)
			}
		}
	})
}
