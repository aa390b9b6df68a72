package evolve

import (
	"context"
	"slices"
	"testing"
)

func TestWeaknesses(t *testing.T) {
	self := "I summarise incidents well.\nWeakness: time zones in meeting invites\n- trips up: Terraform state locks\n* 弱点：日本語の敬語\nweakness:\nNot a weakness: here"
	want := []string{"time zones in meeting invites", "Terraform state locks", "日本語の敬語"}
	if got := Weaknesses(self); !slices.Equal(got, want) {
		t.Fatalf("Weaknesses = %q, want %q", got, want)
	}
}

func TestHitsWeakness(t *testing.T) {
	self := "Good at SQL.\nWeakness: time zones in meeting invites\nWeakness: Terraform state locks\nWeakness: 数据库迁移"
	tests := []struct {
		name, text string
		want       bool
	}{
		{"two telling words", "send a meeting invite for 9am Berlin time, mind the zones", true},
		{"the words in a tool's error", "plan it\nshell\nError acquiring the state lock (terraform)", true},
		{"one word is not enough", "what time is it?", false},
		{"stop words do not count", "when you use the invites with them", false},
		{"CJK", "帮我做数据库迁移的计划", true},
		{"unrelated", "write a haiku about autumn", false},
		{"empty run", "", false},
	}
	for _, tt := range tests {
		if got := HitsWeakness(self, tt.text); got != tt.want {
			t.Errorf("%s: HitsWeakness(%q) = %v, want %v", tt.name, tt.text, got, tt.want)
		}
	}
	if HitsWeakness("", "meeting invite time zones") {
		t.Error("an empty memo names no weakness")
	}
	if HitsWeakness("Good at time zones and meeting invites.", "meeting invite time zones") {
		t.Error("a strength is not a weakness")
	}
}

type fakeRuns struct{ got []Run }

func (f *fakeRuns) RecordRun(_ context.Context, r Run) error { f.got = append(f.got, r); return nil }
func (f *fakeRuns) MarkCorrected(context.Context, string, string) (bool, error) {
	return true, nil
}

type fakeMemos map[string]Memo

func (f fakeMemos) Memo(_ context.Context, scope string) (Memo, error) { return f[scope], nil }
func (f fakeMemos) SetMemo(_ context.Context, scope, kind, text string) error {
	return nil
}

// TestRecorderMarksWeakness: the weakness is checked against the run's own
// scope's memo, never another's.
func TestRecorderMarksWeakness(t *testing.T) {
	runs := &fakeRuns{}
	rec := Recorder{Runs: runs, Memos: fakeMemos{"space:slack:T1": {Self: "Weakness: Terraform state locks"}}}
	ctx := context.Background()
	for _, r := range []Run{
		{Scope: "space:slack:T1", About: "terraform apply failed: state lock held"},
		{Scope: "space:slack:T2", About: "terraform apply failed: state lock held"},
		{Scope: "space:slack:T1", About: "a haiku"},
	} {
		if err := rec.RecordRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	var got []bool
	for _, r := range runs.got {
		got = append(got, r.Weakness)
	}
	if want := []bool{true, false, false}; !slices.Equal(got, want) {
		t.Fatalf("weakness per run = %v, want %v", got, want)
	}
}
