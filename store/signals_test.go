package store_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/evolve"
)

func TestRunSignals(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	runs := []evolve.Run{
		{Scope: "space:slack:T1", SessionID: "s1", Author: "slack:U1", Key: "k1", At: t0,
			Signals: evolve.Signals{ToolCalls: 3, TransientErrors: 2, RealErrors: 1, Recovered: true, SkillsRead: []string{"deploy"}}},
		{Scope: "space:slack:T1", SessionID: "s1", Author: "slack:U2", Key: "k2", At: t0.Add(time.Minute)},
		{Scope: "person:slack:U1", SessionID: "s2", Author: "slack:U1", Key: "k3", At: t0.Add(2 * time.Minute),
			Signals: evolve.Signals{EndedInRealError: true, Stopped: true}},
	}
	for _, r := range runs {
		if err := db.RecordRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	// U1 corrects in s1: their run is marked, not U2's later one.
	if ok, err := db.MarkCorrected(ctx, "s1", "slack:U1"); err != nil || !ok {
		t.Fatalf("MarkCorrected = %v, %v", ok, err)
	}
	if ok, _ := db.MarkCorrected(ctx, "s1", "slack:U1"); ok {
		t.Fatal("a run is marked corrected twice")
	}
	if ok, _ := db.MarkCorrected(ctx, "s9", "slack:U1"); ok {
		t.Fatal("a correction with no run before it marked something")
	}
	got, err := db.Runs(ctx, "space:slack:T1", t0)
	if err != nil {
		t.Fatal(err)
	}
	want := runs[:2]
	want[0].Corrected = true
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("runs of T1 (-want +got):\n%s", diff)
	}
	if got, _ := db.Runs(ctx, "person:slack:U1", t0); len(got) != 1 || !got[0].Stopped || !got[0].EndedInRealError {
		t.Fatalf("runs of U1's DMs: %+v", got)
	}
}

func TestActivity(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	add := func(scope string, at time.Time, s evolve.Signals) {
		t.Helper()
		if err := db.RecordRun(ctx, evolve.Run{Scope: scope, SessionID: "s", Author: "slack:U1", Key: at.String(), At: at, Signals: s}); err != nil {
			t.Fatal(err)
		}
	}
	add("a", t0, evolve.Signals{Corrected: true})
	add("a", t0.Add(time.Hour), evolve.Signals{ToolCalls: 1})
	add("b", t0, evolve.Signals{TransientErrors: 9})
	add("c", t0, evolve.Signals{Weakness: true})
	if err := db.MarkReflected(ctx, "a", t0.Add(30*time.Minute)); err != nil {
		t.Fatal(err)
	}
	got, err := db.Activity(ctx, evolve.DefaultWeights())
	if err != nil {
		t.Fatal(err)
	}
	want := []evolve.Activity{
		{Scope: "a", LastReflected: t0.Add(30 * time.Minute), LastActivity: t0.Add(time.Hour), Since: t0.Add(time.Hour), Best: 0},
		{Scope: "b", LastActivity: t0, Since: t0, Best: 0},
		{Scope: "c", LastActivity: t0, Since: t0, Best: 0.7}, // the weakness is kept and scored
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("activity (-want +got):\n%s", diff)
	}
	// Reflecting again moves the mark; a restart reads it back.
	db.MarkReflected(ctx, "b", t0.Add(2*time.Hour))
	got, _ = db.Activity(ctx, evolve.DefaultWeights())
	if !got[1].LastReflected.Equal(t0.Add(2*time.Hour)) || !got[1].Since.IsZero() {
		t.Fatalf("after reflecting b: %+v", got[1])
	}
}
