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
