package storetest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
	"github.com/parleybot/parley/internal/changes"
)

// The search by meaning: vectors kept, scanned and dropped by the store,
// through the real OpenAI client against a fake embeddings endpoint.

var hybridTests = []test{
	{"FindsByMeaning", testHybridFindsByMeaning},
	{"KeepsBestLiteralMatch", testHybridKeepsBestLiteralMatch},
	{"FallsBackToKeywords", testHybridFallsBackToKeywords},
	{"RunEmbedderRetries", testRunEmbedderRetries},
}

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

// hybridSetup opens a fresh database and a fake embeddings endpoint that
// knows conceptEmbedding's synonyms.
func hybridSetup(t *testing.T, s suite) (Store, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(llmtest.WithEmbedding(conceptEmbedding))
	t.Cleanup(srv.Close)
	db := s.fresh(t)
	needKeywordIndex(t, db)
	return db, srv
}

// hybridKB is a knowledge base searching by meaning through the real
// OpenAI client against the fake embeddings endpoint.
func hybridKB(t *testing.T, db kb.Store, srv *llmtest.Server, sleep func(context.Context, time.Duration) error) *kb.Base {
	t.Helper()
	e := openai.New(openai.Config{APIKey: "k", BaseURL: srv.OpenAIBaseURL()}).Embedder("concepts-1")
	return kb.New(kb.Config{Store: db, Embedder: e, EmbeddingModel: "concepts-1", Sleep: sleep,
		Chunking: kb.ChunkOptions{Lines: 3, Overlap: 1}})
}

func embedAll(t *testing.T, b *kb.Base) {
	t.Helper()
	for {
		n, err := b.EmbedPending(t.Context())
		if err != nil {
			t.Fatalf("EmbedPending: %v", err)
		}
		if n == 0 {
			return
		}
	}
}

func testHybridFindsByMeaning(t *testing.T, s suite) {
	db, srv := hybridSetup(t, s)
	b := hybridKB(t, db, srv, nil)
	Ingest(t, b, "operator", "handbook.md", "Annual leave is 25 days per year.\nBook it in the HR tool two weeks ahead.\n")
	Ingest(t, b, "operator", "it.md", "New starters collect their laptop from IT on day one.\n")
	Ingest(t, b, "operator", "menu.md", "Lunch is served from noon.\nSoup on Fridays.\n")
	embedAll(t, b)

	query := "how much vacation can I take"
	keywordOnly := kb.New(kb.Config{Store: db})
	kw, err := keywordOnly.Search(t.Context(), []string{"operator"}, query, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Search(t.Context(), []string{"operator"}, query, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(kw) > 0 && kw[0].Source == "handbook.md" {
		t.Fatalf("the keyword pass alone finds it (%v): the test shows nothing", Cites(kw))
	}
	if c := Cites(got); !slices.Equal(c, []string{"handbook.md:1-2"}) {
		t.Fatalf("hybrid search = %v, want handbook.md:1-2", c)
	}
	zh, err := b.Search(t.Context(), []string{"operator"}, "电脑在哪里领", 1)
	if err != nil || len(zh) == 0 || zh[0].Source != "it.md" {
		t.Fatalf("a Chinese question about laptops = %v, %v", Cites(zh), err)
	}
}

// A document just added, not embedded yet, holding the exact string asked
// for, stays in the top-K however many passages the vector pass prefers.
func testHybridKeepsBestLiteralMatch(t *testing.T, s suite) {
	db, srv := hybridSetup(t, s)
	b := hybridKB(t, db, srv, nil)
	for i := range 25 {
		Ingest(t, b, "operator", fmt.Sprintf("leave%02d.md", i), fmt.Sprintf("Leave policy note %d about holiday and vacation.\n", i))
	}
	embedAll(t, b)
	Ingest(t, b, "operator", "incident.md", "Error ZX4471 means the leave calendar sync failed.\n")

	got, err := b.Search(t.Context(), []string{"operator"}, "vacation holiday leave ZX4471", 5)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(got, func(r kb.Result) bool { return r.Source == "incident.md" }) {
		t.Fatalf("the only passage holding ZX4471 fell out of the top 5: %v", Cites(got))
	}
}

func testHybridFallsBackToKeywords(t *testing.T, s suite) {
	db, srv := hybridSetup(t, s)
	b := hybridKB(t, db, srv, nil)
	Ingest(t, b, "operator", "runbook.md", "Failover: promote the replica with pg_ctl promote.\n")
	embedAll(t, b)
	srv.EnqueueEmbeddings(llmtest.Status(http.StatusInternalServerError))
	got, err := b.Search(t.Context(), []string{"operator"}, "failover promote", 5)
	if err != nil || len(got) != 1 || got[0].Source != "runbook.md" {
		t.Fatalf("with the embeddings endpoint down: %v, %v; want the keyword result", Cites(got), err)
	}
}

// notifyingStore tells a test each time vectors are written or dropped.
type notifyingStore struct {
	Store
	feed *changes.Feed
}

func (s notifyingStore) PutVectors(ctx context.Context, model string, v []kb.Vector) error {
	defer s.feed.Notify()
	return s.Store.PutVectors(ctx, model, v)
}

func (s notifyingStore) DropVectors(ctx context.Context, keep string) (int64, error) {
	defer s.feed.Notify()
	return s.Store.DropVectors(ctx, keep)
}

// The background embedder waits out a 429 (as long as Retry-After says)
// and a 500, then embeds everything; a new model re-embeds and drops the
// old model's vectors.
func testRunEmbedderRetries(t *testing.T, s suite) {
	db, srv := hybridSetup(t, s)
	feed := changes.New()
	var mu sync.Mutex
	var waits []time.Duration
	sleep := func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return ctx.Err()
	}
	st := notifyingStore{db, feed}
	b := hybridKB(t, st, srv, sleep)
	for i := range 3 {
		Ingest(t, b, "operator", fmt.Sprintf("d%d.md", i), fmt.Sprintf("document %d\nline two\nline three\nline four\n", i))
	}
	srv.EnqueueEmbeddings(llmtest.Status(http.StatusTooManyRequests).WithHeader("Retry-After", "9"), llmtest.Status(http.StatusInternalServerError))

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); b.RunEmbedder(ctx) }()
	missing := func(model string) int {
		p, err := db.MissingVectors(t.Context(), model, 1000)
		if err != nil {
			t.Error(err)
		}
		return len(p)
	}
	wctx, wcancel := context.WithTimeout(t.Context(), time.Minute)
	defer wcancel()
	if err := feed.WaitFor(wctx, func() bool { return missing("concepts-1") == 0 }); err != nil {
		t.Fatalf("not all embedded: %v", err)
	}
	cancel()
	<-done
	mu.Lock()
	if len(waits) != 2 || waits[0] != 9*time.Second {
		t.Errorf("waits = %v, want 9s (Retry-After) then a backoff", waits)
	}
	mu.Unlock()

	// A new model: everything is embedded again, and the old vectors go.
	e2 := openai.New(openai.Config{APIKey: "k", BaseURL: srv.OpenAIBaseURL()}).Embedder("concepts-2")
	b2 := kb.New(kb.Config{Store: st, Embedder: e2, EmbeddingModel: "concepts-2", Sleep: sleep})
	if got, err := b2.Search(t.Context(), []string{"operator"}, "document", 5); err != nil || len(got) == 0 {
		t.Fatalf("keyword search serves while re-embedding: %v, %v", Cites(got), err)
	}
	ctx2, cancel2 := context.WithCancel(t.Context())
	done2 := make(chan struct{})
	go func() { defer close(done2); b2.RunEmbedder(ctx2) }()
	oldGone := func() bool {
		n := 0
		db.ScanVectors(t.Context(), "concepts-1", func(int64, string, []float32) { n++ })
		return missing("concepts-2") == 0 && n == 0
	}
	if err := feed.WaitFor(wctx, oldGone); err != nil {
		t.Fatalf("re-embedding with a new model: %v", err)
	}
	cancel2()
	<-done2
}
