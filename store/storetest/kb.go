package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/kb"
)

// The knowledge base's tests go through kb.Base where they can: what a
// store must do is what the knowledge base needs of it. Every engine must
// find the right passages and honour scopes; how it ranks close matches
// is its own (SQLite's BM25 figures are held in store's tests).

var kbTests = []test{
	{"KeywordSearchFinds", testKeywordSearchFinds},
	{"KeywordSearchFiltersBeforeRanking", testKeywordSearchFiltersBeforeRanking},
	{"SearchTakesAnyText", testSearchTakesAnyText},
	{"IngestReplacesAndDedupes", testIngestReplacesAndDedupes},
	{"IngestScopeCap", testIngestScopeCap},
	{"Vectors", testVectors},
	{"DocumentLookups", testDocumentLookups},
}

// needKeywordIndex skips a test of the knowledge base where the engine
// was built without a keyword index (SQLite without FTS5), which turns
// the knowledge base off; any other error fails it.
func needKeywordIndex(t testing.TB, db Store) {
	t.Helper()
	if err := db.KeywordIndex(); errors.Is(err, kb.ErrNoKeywordIndex) {
		t.Skipf("the knowledge base is off: %v", err)
	} else if err != nil {
		t.Fatalf("KeywordIndex: %v", err)
	}
}

// KeywordBase is a keyword-only knowledge base over db, in passages of
// four lines. Engines' own tests of the knowledge base use it too, with
// Ingest and Cites.
func KeywordBase(t testing.TB, db Store) *kb.Base {
	t.Helper()
	needKeywordIndex(t, db)
	return kb.New(kb.Config{Store: db, Chunking: kb.ChunkOptions{Lines: 4, Overlap: 1}})
}

// Ingest adds text to b as the document source of scope.
func Ingest(t testing.TB, b *kb.Base, scope, source, text string) kb.Ingested {
	t.Helper()
	got, err := b.Ingest(context.Background(), kb.Document{Scope: scope, Source: source, Kind: "text", AddedBy: "operator"}, text)
	if err != nil {
		t.Fatalf("Ingest %s: %v", source, err)
	}
	return got
}

// Cites is a search's results as "source:start-end".
func Cites(rs []kb.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprintf("%s:%d-%d", r.Source, r.Start, r.End)
	}
	return out
}

func testKeywordSearchFinds(t *testing.T, s suite) {
	b := KeywordBase(t, s.fresh(t))
	Ingest(t, b, "operator", "zh.md", "# 设备申领\n新员工入职后申领设备的流程如下。\n我们在团建时玩成语接龙。\n请用Docker部署服务。\n")
	Ingest(t, b, "operator", "code.go", "package llm\n\n// ParseModelRef splits provider/model.\nfunc ParseModelRef(s string) {}\n\nvar x = 1\nvar y = 2\nvar z = 3\nschedule.next_run_at = now\n")
	Ingest(t, b, "operator", "en.md", "The next run is at noon.\nRotate the signing key every 90 days.\nThe key of the signing ceremony is kept in the safe.\n")

	tests := []struct {
		query string
		want  string // the first result
		none  bool
	}{
		{query: "设备", want: "zh.md:1-4"},
		{query: "成语接龙", want: "zh.md:1-4"},
		{query: "Docker", want: "zh.md:1-4"},
		{query: "部署", want: "zh.md:1-4"},
		{query: "设", want: "zh.md:1-4"}, // one character: the uni column
		{query: "ParseModelRef", want: "code.go:1-4"},
		{query: "next_run_at", want: "code.go:7-9"},
		{query: "next_run", none: true},                         // whole tokens: no prefix match
		{query: "rotate signing key", want: "en.md:1-3"},        // all the words
		{query: `"signing key" OR NOT -x:*`, want: "en.md:1-3"}, // syntax is text
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got, err := b.Search(t.Context(), []string{"operator"}, tt.query, 5)
			if err != nil {
				t.Fatalf("Search: %v", err)
			}
			if tt.none {
				if len(got) != 0 {
					t.Fatalf("Search(%q) = %v, want nothing", tt.query, Cites(got))
				}
				return
			}
			if len(got) == 0 || Cites(got)[0] != tt.want {
				t.Fatalf("Search(%q) = %v, want %s first", tt.query, Cites(got), tt.want)
			}
		})
	}
}

// The scope filter is inside the query: many better matches in a scope
// the asker cannot see never push out the one they can.
func testKeywordSearchFiltersBeforeRanking(t *testing.T, s suite) {
	db := s.fresh(t)
	b := KeywordBase(t, db)
	for i := range 30 {
		Ingest(t, b, "space:slack:T2", fmt.Sprintf("other%02d.md", i), strings.Repeat("canary canary canary\n", 3)+fmt.Sprint(i))
	}
	Ingest(t, b, "space:slack:T1", "ours.md", "a long line that mentions the canary once among many other words here\n")
	got, err := db.KeywordSearch(t.Context(), []string{"operator", "space:slack:T1"}, kb.MatchQuery("canary"), 5)
	if err != nil {
		t.Fatal(err)
	}
	if c := Cites(got); !slices.Equal(c, []string{"ours.md:1-1"}) {
		t.Fatalf("got %v, want only ours.md", c)
	}
}

func testIngestReplacesAndDedupes(t *testing.T, s suite) {
	db := s.fresh(t)
	b := KeywordBase(t, db)
	ctx := t.Context()
	if got := Ingest(t, b, "operator", "a.md", "alpha one\n"); got.Outcome != kb.Added {
		t.Fatalf("first: %s", got.Outcome)
	}
	if got := Ingest(t, b, "operator", "a.md", "alpha one\n"); got.Outcome != kb.Unchanged {
		t.Fatalf("same again: %s", got.Outcome)
	}
	if got := Ingest(t, b, "operator", "copy.md", "alpha one\n"); got.Outcome != kb.Duplicate || got.Doc.Source != "a.md" {
		t.Fatalf("copy: %s %s", got.Outcome, got.Doc.Source)
	}
	if got := Ingest(t, b, "space:slack:T1", "copy.md", "alpha one\n"); got.Outcome != kb.Added {
		t.Fatalf("the same content in another scope is its own: %s", got.Outcome)
	}
	if got := Ingest(t, b, "operator", "a.md", "beta two\n"); got.Outcome != kb.Replaced {
		t.Fatalf("changed: %s", got.Outcome)
	}
	for q, want := range map[string]int{"alpha": 0, "beta": 1} {
		got, err := b.Search(ctx, []string{"operator"}, q, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != want {
			t.Errorf("after replacing, %q finds %v, want %d", q, Cites(got), want)
		}
	}
	docs, err := b.List(ctx, []string{"operator"})
	if err != nil || len(docs) != 1 || docs[0].Chunks != 1 {
		t.Fatalf("List = %+v, %v; want the one replaced document", docs, err)
	}
	if err := b.Forget(ctx, docs[0].ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.Search(ctx, []string{"operator"}, "beta", 5); len(got) != 0 {
		t.Fatalf("a forgotten document is still found: %v", Cites(got))
	}
}

func testIngestScopeCap(t *testing.T, s suite) {
	db := s.fresh(t)
	needKeywordIndex(t, db)
	b := kb.New(kb.Config{Store: db, MaxScopeBytes: 20})
	ctx := t.Context()
	if _, err := b.Ingest(ctx, kb.Document{Scope: "operator", Source: "a", AddedBy: "operator"}, "0123456789"); err != nil {
		t.Fatal(err)
	}
	// Replacing a counts a's new size, not both.
	if _, err := b.Ingest(ctx, kb.Document{Scope: "operator", Source: "a", AddedBy: "operator"}, "0123456789abcdef"); err != nil {
		t.Fatalf("replacing within the cap: %v", err)
	}
	_, err := b.Ingest(ctx, kb.Document{Scope: "operator", Source: "b", AddedBy: "operator"}, "0123456789")
	if err == nil || !strings.Contains(err.Error(), "cap") {
		t.Fatalf("over the scope's cap: %v", err)
	}
}

func testVectors(t *testing.T, s suite) {
	db := s.fresh(t)
	b := KeywordBase(t, db)
	ctx := t.Context()
	Ingest(t, b, "operator", "a.md", "one\ntwo\nthree\nfour\nfive\n")
	Ingest(t, b, "operator", "c.md", "x\none\ntwo\nthree\nfour\n")
	// b.md's passages have a.md's texts: their vectors are shared.
	Ingest(t, b, "space:slack:T9", "b.md", "one\ntwo\nthree\nfour\nfive\n")

	pending, err := db.MissingVectors(ctx, "m1", 100)
	if err != nil {
		t.Fatal(err)
	}
	hashes := map[string]bool{}
	for _, p := range pending {
		if hashes[p.Hash] {
			t.Fatalf("MissingVectors lists %s twice", p.Hash)
		}
		hashes[p.Hash] = true
	}
	var vecs []kb.Vector
	for i, p := range pending {
		vecs = append(vecs, kb.Vector{Hash: p.Hash, Vec: []float32{float32(i), 1, -2.5}})
	}
	if err := db.PutVectors(ctx, "m1", vecs); err != nil {
		t.Fatal(err)
	}
	if p, _ := db.MissingVectors(ctx, "m1", 100); len(p) != 0 {
		t.Fatalf("still missing: %d", len(p))
	}
	if p, _ := db.MissingVectors(ctx, "m2", 100); len(p) != len(pending) {
		t.Fatalf("a new model misses %d, want %d", len(p), len(pending))
	}
	seen, scoped, all := 0, 0, 0
	err = db.ScanVectors(ctx, "m1", func(id int64, scope string, v []float32) {
		all++
		switch scope {
		case "operator":
			seen++
		case "space:slack:T9":
			scoped++
		}
		if len(v) != 3 || v[1] != 1 || v[2] != -2.5 {
			t.Errorf("vector %d = %v", id, v)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 4 || seen != 4 { // a.md's 2 passages and c.md's 2
		t.Fatalf("%d texts to embed, %d passages scanned; want 4 and 4", len(pending), seen)
	}
	if scoped != 2 || all != seen+scoped {
		t.Fatalf("scan by scope: operator %d, T9 %d, both %d", seen, scoped, all)
	}
	before, _ := db.Generation(ctx)
	if n, err := db.DropVectors(ctx, "m2"); err != nil || n != int64(len(pending)) {
		t.Fatalf("DropVectors = %d, %v", n, err)
	}
	if after, _ := db.Generation(ctx); after == before {
		t.Fatal("dropping vectors does not change the generation: an in-memory index would serve them still")
	}
}

// testSearchTakesAnyText: whatever a person asks, including what would be
// query syntax, the search answers without an error (store's fuzz test
// explores further on SQLite).
func testSearchTakesAnyText(t *testing.T, s suite) {
	b := KeywordBase(t, s.fresh(t))
	Ingest(t, b, "operator", "a.md", "alpha beta\n设备 成语接龙\n")
	for _, q := range []string{"alpha", `"`, "NEAR(a b", "a AND", "*", "设", "x:y", "^a", "a + b", "\x00",
		"a & b | !c", "(a", "a:*", "'", "\\", "-", "OR", "alpha)"} {
		if _, err := b.Search(t.Context(), []string{"operator"}, q, 5); err != nil {
			t.Errorf("Search(%q): %v", q, err)
		}
	}
	if got, err := b.Search(t.Context(), []string{"operator"}, "alpha)", 5); err != nil || len(got) != 1 {
		t.Errorf("Search(alpha)) = %v, %v; want a.md, the parenthesis taken as text", Cites(got), err)
	}
}

// testDocumentLookups: a document reads back by id as listed; deleting it
// takes its passages along; the generation moves with every change of
// passages.
func testDocumentLookups(t *testing.T, s suite) {
	db := s.fresh(t)
	b := KeywordBase(t, db)
	ctx := t.Context()
	generation := func() int64 {
		t.Helper()
		g, err := db.Generation(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g0 := generation()
	a := Ingest(t, b, "operator", "a.md", "alpha one\nalpha two\n").Doc
	g1 := generation()
	if g1 == g0 {
		t.Error("adding a document left the generation as it was")
	}
	Ingest(t, b, "operator", "b.md", "bravo\n")
	listed, err := db.Documents(ctx, []string{"operator"})
	if err != nil || len(listed) != 2 || listed[0].Source != "a.md" || listed[1].Source != "b.md" {
		t.Fatalf("Documents = %+v, %v; want a.md then b.md", listed, err)
	}
	for _, d := range listed {
		if got, ok, err := db.DocumentByID(ctx, d.ID); err != nil || !ok || got != d {
			t.Errorf("DocumentByID(%d) = %+v, %v, %v; want %+v", d.ID, got, ok, err, d)
		}
	}
	if got, ok, err := db.DocumentByID(ctx, listed[1].ID+1000); err != nil || ok {
		t.Errorf("DocumentByID of no document = %+v, %v, %v; want none", got, ok, err)
	}
	hits, err := db.KeywordSearch(ctx, []string{"operator"}, kb.MatchQuery("alpha"), 10)
	if err != nil || len(hits) == 0 {
		t.Fatalf("KeywordSearch(alpha) = %v, %v", Cites(hits), err)
	}
	var ids []int64
	for _, h := range hits {
		ids = append(ids, h.ChunkID)
	}
	if got, err := db.Passages(ctx, ids); err != nil || len(got) != len(ids) || got[0].DocID != a.ID || got[0].Text == "" {
		t.Fatalf("Passages(%v) = %+v, %v", ids, got, err)
	}

	g2 := generation()
	if err := db.DeleteDocument(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if generation() == g2 {
		t.Error("deleting a document left the generation as it was")
	}
	if _, ok, err := db.DocumentByID(ctx, a.ID); err != nil || ok {
		t.Errorf("a deleted document is found by id: %v, %v", ok, err)
	}
	if got, err := db.Passages(ctx, ids); err != nil || len(got) != 0 {
		t.Errorf("a deleted document's passages = %+v, %v; want none", got, err)
	}
	if all, err := db.AllDocuments(ctx); err != nil || len(all) != 1 || all[0].Source != "b.md" {
		t.Errorf("AllDocuments after deleting a.md = %+v, %v", all, err)
	}
}
