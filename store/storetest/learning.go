package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/evolve"
)

var learningTests = []test{
	{"RunSignals", testRunSignals},
	{"Activity", testActivity},
	{"SkillRates", testSkillRates},
	{"Memo", testMemo},
	{"Revisions", testRevisions},
	{"ReflectionLog", testReflectionLog},
	{"ScheduleSurvivesRestarts", testScheduleSurvivesRestarts},
	{"OneReplicaRunsTheCycle", testOneReplicaRunsTheCycle},
}

func testRunSignals(t *testing.T, s suite) {
	db := s.fresh(t)
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

func testActivity(t *testing.T, s suite) {
	db := s.fresh(t)
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

// testSkillRates: impressions count each listing; invocations are the
// runs that read the skill (its name in any case); of those, the ones the
// person corrected and the ones that ended in a real error without being
// stopped.
func testSkillRates(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	const scope = "space:slack:T1"
	for range 3 {
		if err := db.AddImpressions(ctx, scope, []string{"deploy", "triage"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.AddImpressions(ctx, scope, nil); err != nil {
		t.Fatalf("no impressions: %v", err)
	}
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	runs := []evolve.Signals{
		{SkillsRead: []string{"deploy"}},
		{SkillsRead: []string{"Deploy", "triage"}, EndedInRealError: true},
		{SkillsRead: []string{"deploy"}, EndedInRealError: true, Stopped: true}, // stopped: not ineffective
		{SkillsRead: []string{"deploy"}},
		{SkillsRead: []string{"triage"}},
		{}, // read nothing
	}
	for i, sig := range runs {
		r := evolve.Run{Scope: scope, SessionID: fmt.Sprint("s", i), Author: "slack:U1", Key: fmt.Sprint("k", i), At: t0.Add(time.Duration(i) * time.Minute), Signals: sig}
		if err := db.RecordRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	// The person corrects the run that read deploy (and triage) in s1.
	if ok, err := db.MarkCorrected(ctx, "s1", "slack:U1"); err != nil || !ok {
		t.Fatalf("MarkCorrected = %v, %v", ok, err)
	}
	tests := []struct {
		name string
		want evolve.Rates
	}{
		{"deploy", evolve.Rates{Impressions: 3, Invocations: 4, EditAfterHit: 1, Ineffective: 1}},
		{"triage", evolve.Rates{Impressions: 3, Invocations: 2, EditAfterHit: 1, Ineffective: 1}},
		{"unknown", evolve.Rates{}},
	}
	for _, tt := range tests {
		got, err := db.SkillRates(ctx, scope, tt.name)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("SkillRates(%q) = %+v, want %+v", tt.name, got, tt.want)
		}
	}
	// The whole scope at once: the same counts, by lowercased name.
	all, err := db.ScopeSkillRates(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all["deploy"] != tests[0].want || all["triage"] != tests[1].want {
		t.Errorf("ScopeSkillRates = %+v, want deploy %+v and triage %+v", all, tests[0].want, tests[1].want)
	}
	if other, err := db.ScopeSkillRates(ctx, "space:slack:T2"); err != nil || len(other) != 0 {
		t.Errorf("another scope's rates = %+v, %v; want none", other, err)
	}
}

func testMemo(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	if m, err := db.Memo(ctx, "space:slack:T1"); err != nil || m != (evolve.Memo{}) {
		t.Fatalf("Memo of a scope without one = %+v, %v", m, err)
	}
	steps := []struct {
		kind, text string
		want       evolve.Memo
	}{
		{evolve.MemoSelf, "I forget to check the CI before saying done.", evolve.Memo{Self: "I forget to check the CI before saying done."}},
		{evolve.MemoTeam, "They deploy on Tuesdays.", evolve.Memo{Self: "I forget to check the CI before saying done.", Team: "They deploy on Tuesdays."}},
		{evolve.MemoSelf, "Check the CI.", evolve.Memo{Self: "Check the CI.", Team: "They deploy on Tuesdays."}},
		{evolve.MemoTeam, "", evolve.Memo{Self: "Check the CI."}},
	}
	for i, st := range steps {
		if err := db.SetMemo(ctx, "space:slack:T1", st.kind, st.text); err != nil {
			t.Fatal(err)
		}
		got, err := db.Memo(ctx, "space:slack:T1")
		if err != nil || got != st.want {
			t.Errorf("step %d: Memo = %+v, %v; want %+v", i, got, err, st.want)
		}
	}
}

func testRevisions(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	const scope = "space:slack:T1"
	if got, err := db.Revisions(ctx, scope, 10); err != nil || len(got) != 0 {
		t.Fatalf("Revisions of a scope without any = %+v, %v", got, err)
	}
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	revs := []evolve.Revision{
		{Scope: scope, Kind: "skill", Name: "deploy", Action: "created", At: t0},
		{Scope: scope, Kind: "skill", Name: "deploy", Action: "patched", Before: "# Deploy\nold steps\n", At: t0.Add(time.Minute)},
		{Scope: scope, Kind: "memo", Name: evolve.MemoSelf, Action: "noted", Before: "older note", At: t0.Add(2 * time.Minute)},
	}
	for _, r := range revs {
		if err := db.AddRevision(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Revisions(ctx, scope, 10)
	if err != nil || len(got) != 3 {
		t.Fatalf("Revisions = %+v, %v", got, err)
	}
	for i, r := range got { // newest first
		want := revs[len(revs)-1-i]
		want.ID = r.ID
		if r.ID == 0 || r != want {
			t.Errorf("revision %d = %+v, want %+v", i, r, want)
		}
	}
	if latest, _ := db.Revisions(ctx, scope, 2); len(latest) != 2 || latest[0].ID != got[0].ID || latest[1].ID != got[1].ID {
		t.Errorf("the latest 2 = %+v", latest)
	}
	if err := db.DeleteRevision(ctx, got[1].ID); err != nil {
		t.Fatal(err)
	}
	left, err := db.Revisions(ctx, scope, 10)
	if err != nil || len(left) != 2 || left[0].ID != got[0].ID || left[1].ID != got[2].ID {
		t.Errorf("after deleting the patch: %+v, %v", left, err)
	}
}

// Reflections are kept as they were recorded, failures with their
// reason, and listed newest first up to the limit.
func testReflectionLog(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	if got, err := db.Reflections(ctx, 10); err != nil || len(got) != 0 {
		t.Fatalf("Reflections of a fresh store = %+v, %v", got, err)
	}
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 123_000_000, time.UTC)
	recs := []evolve.ReflectionRecord{
		{Scope: "space:slack:T1", At: t0, Changes: 2, Calls: 4, Tokens: 54_118, Nanos: 81_177_000},
		{Scope: "person:telegram:42", At: t0.Add(time.Hour), Calls: 1, Tokens: 900, Unpriced: 1, Err: "reflection model call: 503"},
		{Scope: "agent:ops:space:slack:T1", At: t0.Add(2 * time.Hour), Changes: 1, Calls: 30, Tokens: 300_000,
			Nanos: 1_234_567_890, Unpriced: 2, Err: "the reflection cycle's budget is spent"},
	}
	for _, r := range recs {
		if err := db.RecordReflection(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Reflections(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID <= got[1].ID {
		t.Fatalf("Reflections(2) = %+v: want the two newest, newest first", got)
	}
	for i := range got {
		got[i].ID = 0
	}
	if diff := cmp.Diff([]evolve.ReflectionRecord{recs[2], recs[1]}, got); diff != "" {
		t.Errorf("Reflections (-want +got):\n%s", diff)
	}
	if all, _ := db.Reflections(ctx, 100); len(all) != 3 {
		t.Errorf("Reflections(100) = %d records, want 3", len(all))
	}
}
