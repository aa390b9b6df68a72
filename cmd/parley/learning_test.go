package main

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/store"
)

// The console's scopes: those with skills in the store, and those whose runs left a note or a change; a scope with
// runs and nothing learnt is not one.
func TestLearningScopes(t *testing.T) {
	ctx := t.Context()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l := learning{files: evolve.Skills{Store: db}, db: db}
	if _, _, err := l.files.Create(t.Context(), "agent:my_bot:space:slack:T1", "Deploy", "d", "steps"); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	for i, scope := range []string{"person:slack:U1", "person:slack:U2", "space:slack:T9"} {
		if err := db.RecordRun(ctx, evolve.Run{Scope: scope, SessionID: "s", Author: "slack:U1", Key: scope, At: at.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SetMemo(ctx, "person:slack:U1", evolve.MemoSelf, "Weakness: time zones"); err != nil {
		t.Fatal(err)
	}
	if err := db.AddRevision(ctx, evolve.Revision{Scope: "space:slack:T9", Kind: "skill", Name: "gone", Action: "deleted", Before: "x", At: at}); err != nil {
		t.Fatal(err)
	}
	got, err := l.Scopes(ctx)
	want := []string{"agent:my_bot:space:slack:T1", "person:slack:U1", "space:slack:T9"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Scopes = %q, %v; want %q", got, err, want)
	}
}
