package storetest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/remind"
)

// What belongs to a scope — documents, skills, self-memos, reminders —
// never shows outside it. The scopes are alike on purpose: one is a
// prefix of another, two differ in case only.

var scopeTests = []test{
	{"Documents", testDocumentScopes},
	{"Skills", testSkillScopes},
	{"Memos", testMemoScopes},
	{"Reminders", testReminderScopes},
}

// scopeKeys are the scopes the tests fill.
var scopeKeys = []string{"operator", "space:slack:T1", "space:slack:T10", "space:slack:t1", "person:slack:U1"}

// emptyScopes are scopes nothing was put in, each close to one that has.
var emptyScopes = []string{"", "space:slack:T", "space:slack:T2", "space:slack:T1 ", "person:slack:u1", "person:slack:U1:x"}

// scopeSets are the scope sets a reader asks for, and which of scopeKeys
// each covers.
var scopeSets = []struct {
	name      string
	ask, want []string
}{
	{"no scope", nil, nil},
	{"operator", []string{"operator"}, []string{"operator"}},
	{"one space", []string{"space:slack:T1"}, []string{"space:slack:T1"}},
	{"the space it prefixes", []string{"space:slack:T10"}, []string{"space:slack:T10"}},
	{"another case", []string{"space:slack:t1"}, []string{"space:slack:t1"}},
	{"a prefix", []string{"space:slack:T"}, nil},
	{"unknown", []string{"space:slack:T2"}, nil},
	{"operator and a person", []string{"operator", "person:slack:U1"}, []string{"operator", "person:slack:U1"}},
	{"with unknown ones", []string{"space:slack:T2", "space:slack:T1", ""}, []string{"space:slack:T1"}},
	{"all", scopeKeys, scopeKeys},
}

// sorted returns a sorted copy of scopes, nil when empty.
func sorted(scopes []string) []string {
	if len(scopes) == 0 {
		return nil
	}
	return slices.Sorted(slices.Values(scopes))
}

func testDocumentScopes(t *testing.T, s suite) {
	db := s.fresh(t)
	b := KeywordBase(t, db)
	ctx := t.Context()
	size := map[string]int64{}
	for i, k := range scopeKeys {
		// notes.md is in every scope, different in each; shared.md is
		// the same text everywhere.
		size[k] += Ingest(t, b, k, "notes.md", fmt.Sprintf("canary note number %d\n", i)).Doc.Bytes
		size[k] += Ingest(t, b, k, "shared.md", "lighthouse keeper canary\n").Doc.Bytes
	}
	shared, ok, err := db.Document(ctx, "operator", "shared.md")
	if err != nil || !ok {
		t.Fatalf("Document(operator, shared.md) = %v, %v", ok, err)
	}
	all, err := db.AllDocuments(ctx)
	if err != nil || len(all) != 2*len(scopeKeys) {
		t.Fatalf("AllDocuments = %d documents, %v; want %d", len(all), err, 2*len(scopeKeys))
	}
	scopeOf := map[int64]string{} // document id → scope
	for _, d := range all {
		scopeOf[d.ID] = d.Scope
	}

	for _, tt := range scopeSets {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := db.Documents(ctx, tt.ask)
			if err != nil {
				t.Fatal(err)
			}
			listed := map[string]int{}
			for _, d := range docs {
				listed[d.Scope]++
			}
			if got := sorted(slices.Collect(maps.Keys(listed))); !slices.Equal(got, sorted(tt.want)) || len(docs) != 2*len(tt.want) {
				t.Errorf("Documents(%q) lists %d documents of %q; want 2 each of %q", tt.ask, len(docs), got, sorted(tt.want))
			}
			hits, err := db.KeywordSearch(ctx, tt.ask, kb.MatchQuery("canary"), 50)
			if err != nil {
				t.Fatal(err)
			}
			found := map[string]int{}
			for _, r := range hits {
				found[scopeOf[r.DocID]]++
			}
			if got := sorted(slices.Collect(maps.Keys(found))); !slices.Equal(got, sorted(tt.want)) || len(hits) != 2*len(tt.want) {
				t.Errorf("KeywordSearch(%q) finds %d passages in %q; want 2 in each of %q", tt.ask, len(hits), got, sorted(tt.want))
			}
		})
	}

	for _, k := range scopeKeys {
		if d, ok, err := db.Document(ctx, k, "notes.md"); err != nil || !ok || d.Scope != k {
			t.Errorf("Document(%q, notes.md) = %+v, %v, %v; want the scope's own", k, d, ok, err)
		}
		if d, ok, err := db.DocumentByHash(ctx, k, shared.Hash); err != nil || !ok || d.Scope != k || d.Source != "shared.md" {
			t.Errorf("DocumentByHash(%q) = %+v, %v, %v; want the scope's own shared.md", k, d, ok, err)
		}
		if n, err := db.ScopeBytes(ctx, k); err != nil || n != size[k] {
			t.Errorf("ScopeBytes(%q) = %d, %v; want %d", k, n, err, size[k])
		}
	}
	for _, k := range emptyScopes {
		if d, ok, err := db.Document(ctx, k, "notes.md"); err != nil || ok {
			t.Errorf("Document(%q, notes.md) = %+v, %v, %v; want none", k, d, ok, err)
		}
		if d, ok, err := db.DocumentByHash(ctx, k, shared.Hash); err != nil || ok {
			t.Errorf("DocumentByHash(%q) = %+v, %v, %v; want none", k, d, ok, err)
		}
		if n, err := db.ScopeBytes(ctx, k); err != nil || n != 0 {
			t.Errorf("ScopeBytes(%q) = %d, %v; want 0", k, n, err)
		}
	}

	// Vectors are shared by text, but each passage is scanned with its
	// own document's scope.
	pending, err := db.MissingVectors(ctx, "m1", 100)
	if err != nil {
		t.Fatal(err)
	}
	var vecs []kb.Vector
	for _, p := range pending {
		vecs = append(vecs, kb.Vector{Hash: p.Hash, Vec: []float32{1, 2}})
	}
	if err := db.PutVectors(ctx, "m1", vecs); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	scanned := map[int64]string{}
	if err := db.ScanVectors(ctx, "m1", func(id int64, scope string, _ []float32) {
		ids = append(ids, id)
		scanned[id] = scope
	}); err != nil {
		t.Fatal(err)
	}
	passages, err := db.Passages(ctx, ids)
	if err != nil || len(passages) != 2*len(scopeKeys) {
		t.Fatalf("Passages = %d, %v; want %d", len(passages), err, 2*len(scopeKeys))
	}
	for _, p := range passages {
		if scanned[p.ChunkID] != scopeOf[p.DocID] {
			t.Errorf("passage %d of %s scanned in scope %q, want %q", p.ChunkID, p.Source, scanned[p.ChunkID], scopeOf[p.DocID])
		}
	}
}

func testSkillScopes(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	// Scope i has i+1 of everything.
	for i, k := range scopeKeys {
		for j := range i + 1 {
			if err := db.AddImpressions(ctx, k, []string{"deploy"}); err != nil {
				t.Fatal(err)
			}
			r := evolve.Run{Scope: k, SessionID: "s1", Author: "slack:U1", Key: fmt.Sprint(k, j), At: t0.Add(time.Duration(j) * time.Minute),
				Signals: evolve.Signals{SkillsRead: []string{"deploy"}}}
			if err := db.RecordRun(ctx, r); err != nil {
				t.Fatal(err)
			}
			if err := db.AddRevision(ctx, evolve.Revision{Scope: k, Kind: "skill", Name: "deploy", Action: "patched", At: r.At}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.MarkReflected(ctx, "space:slack:T1", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}

	check := func(k string, n int) {
		t.Helper()
		if got, err := db.SkillRates(ctx, k, "deploy"); err != nil || got != (evolve.Rates{Impressions: n, Invocations: n}) {
			t.Errorf("SkillRates(%q) = %+v, %v; want %d impressions and invocations", k, got, err, n)
		}
		runs, err := db.Runs(ctx, k, t0)
		if err != nil || len(runs) != n || slices.ContainsFunc(runs, func(r evolve.Run) bool { return r.Scope != k }) {
			t.Errorf("Runs(%q) = %+v, %v; want %d of its own", k, runs, err, n)
		}
		revs, err := db.Revisions(ctx, k, 100)
		if err != nil || len(revs) != n || slices.ContainsFunc(revs, func(r evolve.Revision) bool { return r.Scope != k }) {
			t.Errorf("Revisions(%q) = %+v, %v; want %d of its own", k, revs, err, n)
		}
	}
	for i, k := range scopeKeys {
		check(k, i+1)
	}
	for _, k := range emptyScopes {
		check(k, 0)
	}

	acts, err := db.Activity(ctx, evolve.DefaultWeights())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range acts {
		got = append(got, a.Scope)
		if reflected := a.Scope == "space:slack:T1"; reflected != !a.LastReflected.IsZero() {
			t.Errorf("activity of %q: last reflected %v", a.Scope, a.LastReflected)
		}
	}
	if !slices.Equal(sorted(got), sorted(scopeKeys)) {
		t.Errorf("Activity lists %q, want %q once each", got, sorted(scopeKeys))
	}
}

func testMemoScopes(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	for _, k := range scopeKeys {
		if err := db.SetMemo(ctx, k, evolve.MemoSelf, "self of "+k); err != nil {
			t.Fatal(err)
		}
		if err := db.SetMemo(ctx, k, evolve.MemoTeam, "team of "+k); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SetMemo(ctx, "space:slack:T1", evolve.MemoTeam, "changed"); err != nil {
		t.Fatal(err)
	}
	for _, k := range scopeKeys {
		want := evolve.Memo{Self: "self of " + k, Team: "team of " + k}
		if k == "space:slack:T1" {
			want.Team = "changed"
		}
		if got, err := db.Memo(ctx, k); err != nil || got != want {
			t.Errorf("Memo(%q) = %+v, %v; want %+v", k, got, err, want)
		}
	}
	for _, k := range emptyScopes {
		if got, err := db.Memo(ctx, k); err != nil || got != (evolve.Memo{}) {
			t.Errorf("Memo(%q) = %+v, %v; want none", k, got, err)
		}
	}
}

func testReminderScopes(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	// Scope i has i+1 items of slack:U1 and one of slack:U2.
	for i, k := range scopeKeys {
		for j := range i + 1 {
			addItem(t, db, reminder(k, "slack:U1", rt0.Add(time.Duration(j)*time.Minute)))
		}
		addItem(t, db, reminder(k, "slack:U2", rt0))
	}
	count := func(k, owner string, n int) {
		t.Helper()
		items, err := db.Items(ctx, k, owner)
		if err != nil || len(items) != n || slices.ContainsFunc(items, func(it remind.Item) bool {
			return it.Scope != k || (owner != "" && it.Owner != owner)
		}) {
			t.Errorf("Items(%q, %q) = %d items, %v; want %d of its own", k, owner, len(items), err, n)
		}
	}
	for i, k := range scopeKeys {
		count(k, "", i+2)
		count(k, "slack:U1", i+1)
		count(k, "slack:U2", 1)
		count(k, "slack:u1", 0)
	}
	for _, k := range emptyScopes {
		count(k, "", 0)
	}
	// The cap counts the owner's items in the scope, not in others.
	for i, k := range scopeKeys {
		if _, err := db.AddItem(ctx, reminder(k, "slack:U1", rt0), i+1); !errors.Is(err, remind.ErrCap) {
			t.Errorf("AddItem in %q over its cap of %d: %v, want ErrCap", k, i+1, err)
		}
	}
	for _, k := range emptyScopes[1:] { // "" is no scope at all
		if _, err := db.AddItem(ctx, reminder(k, "slack:U1", rt0), 1); err != nil {
			t.Errorf("AddItem in %q, empty, with a cap of 1: %v", k, err)
		}
	}
}
