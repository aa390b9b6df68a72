package postgres_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
)

// The vector pass over PostgreSQL: vectors kept as bytea, scanned into the
// in-memory index (ScanVectors), fused with the keyword pass — the
// hybrid tests of store, on this engine.

// conceptEmbedding stands in for a model that knows synonyms: words of
// one concept share a dimension, every other word hashes into the rest.
func conceptEmbedding(text string) []float32 {
	concepts := [][]string{
		{"vacation", "leave", "holiday", "pto", "休假", "假期"},
		{"laptop", "computer", "equipment", "设备", "电脑"},
	}
	v := llmtest.HashEmbedding(text)
	lower := strings.ToLower(text)
	for i, words := range concepts {
		for _, w := range words {
			if strings.Contains(lower, w) {
				v[i] += 10
			}
		}
	}
	return v
}

func TestHybridSearch(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(llmtest.WithEmbedding(conceptEmbedding))
	defer srv.Close()
	db := newDB(t)
	e := openai.New(openai.Config{APIKey: "k", BaseURL: srv.OpenAIBaseURL()}).Embedder("concepts-1")
	b := kb.New(kb.Config{Store: db, Embedder: e, EmbeddingModel: "concepts-1", Chunking: kb.ChunkOptions{Lines: 3, Overlap: 1}})
	ctx := t.Context()
	ingest := func(source, text string) {
		t.Helper()
		if _, err := b.Ingest(ctx, kb.Document{Scope: "operator", Source: source, Kind: "text", AddedBy: "operator"}, text); err != nil {
			t.Fatal(err)
		}
	}
	embedAll := func() {
		t.Helper()
		for {
			n, err := b.EmbedPending(ctx)
			if err != nil {
				t.Fatalf("EmbedPending: %v", err)
			}
			if n == 0 {
				return
			}
		}
	}
	search := func(q string, k int) []string {
		t.Helper()
		got, err := b.Search(ctx, []string{"operator"}, q, k)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range got {
			out = append(out, fmt.Sprintf("%s:%d-%d", r.Source, r.Start, r.End))
		}
		return out
	}

	ingest("handbook.md", "Annual leave is 25 days per year.\nBook it in the HR tool two weeks ahead.\n")
	ingest("it.md", "New starters collect their laptop from IT on day one.\n")
	ingest("menu.md", "Lunch is served from noon.\nSoup on Fridays.\n")
	embedAll()
	if got := search("how much vacation can I take", 1); !slices.Equal(got, []string{"handbook.md:1-2"}) {
		t.Errorf("by meaning: %v, want handbook.md:1-2", got)
	}
	if got := search("电脑在哪里领", 1); len(got) == 0 || !strings.HasPrefix(got[0], "it.md:") {
		t.Errorf("a Chinese question about laptops: %v", got)
	}

	// A document not embedded yet, holding the exact string asked for,
	// stays in the top-K however many passages the vector pass prefers.
	for i := range 25 {
		ingest(fmt.Sprintf("leave%02d.md", i), fmt.Sprintf("Leave policy note %d about holiday and vacation.\n", i))
	}
	embedAll()
	ingest("incident.md", "Error ZX4471 means the leave calendar sync failed.\n")
	if got := search("vacation holiday leave ZX4471", 5); !slices.Contains(got, "incident.md:1-1") {
		t.Errorf("the only passage holding ZX4471 fell out of the top 5: %v", got)
	}
}
