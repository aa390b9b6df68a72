package evolve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
)

// clockAt returns a clock that moves a minute each reading.
func clockAt(t0 time.Time) func() time.Time {
	n := 0
	return func() time.Time { n++; return t0.Add(time.Duration(n) * time.Minute) }
}

var t0 = time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)

func TestSkillFileRoundTrip(t *testing.T) {
	s := Skill{Name: "Deploy to staging", Description: "when asked to deploy: staging first, then prod",
		CreatedAt: t0, UpdatedAt: t0.Add(time.Hour), PatchCount: 2, Body: "1. Run `make stage`.\n2. Never deploy on Fridays."}
	data := s.Marshal()
	text := string(data)
	for _, key := range []string{"name:", "description:", "createdAt:", "updatedAt:", "patchCount:", "lastUsedAt:"} {
		if !strings.Contains(text, "\n"+key) {
			t.Errorf("front matter lacks %s:\n%s", key, text)
		}
	}
	got, err := ParseSkill(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != s.Name || got.Description != s.Description || !got.CreatedAt.Equal(s.CreatedAt) ||
		!got.UpdatedAt.Equal(s.UpdatedAt) || got.PatchCount != 2 || !got.LastUsedAt.IsZero() || got.Body != s.Body {
		t.Fatalf("round trip: %+v", got)
	}
	for _, bad := range []string{
		"no front matter",
		"---\nname: x\n",
		"---\nname: x\ncolour: red\n---\nbody",
		"---\ndescription: no name\n---\nbody",
		"---\nname: x\ncreatedAt: yesterday\n---\nbody",
	} {
		if _, err := ParseSkill([]byte(bad)); err == nil {
			t.Errorf("ParseSkill(%q) accepted", bad)
		}
	}
}

func TestSkillFiles(t *testing.T) {
	f := Skills{Store: SkillFiles{Dir: t.TempDir()}, Max: 3, Now: clockAt(t0)}
	scope := "space:slack:T1"
	s, evicted, err := f.Create(t.Context(), scope, "Deploy to staging", "when deploying", "1. make stage\n2. check /health")
	if err != nil || len(evicted) != 0 {
		t.Fatalf("Create = %v, %v", evicted, err)
	}
	if _, err := os.Stat(filepath.Join(f.Store.(SkillFiles).Dir, "space_slack_T1", "deploy-to-staging.md")); err != nil {
		t.Fatalf("the file: %v", err)
	}
	if _, _, err := f.Create(t.Context(), scope, "deploy to staging", "again", "x"); err == nil {
		t.Fatal("a second skill of the same name")
	}

	// A patch changes a span and counts.
	p, err := f.Patch(t.Context(), scope, "Deploy to staging", "check /health", "check /healthz and the error rate")
	if err != nil {
		t.Fatal(err)
	}
	if p.PatchCount != 1 || !p.UpdatedAt.After(s.UpdatedAt) || !strings.Contains(p.Body, "/healthz and the error rate") || !p.CreatedAt.Equal(s.CreatedAt) {
		t.Fatalf("patched: %+v", p)
	}
	// A patch that would cut it by more than half is refused.
	if _, err := f.Patch(t.Context(), scope, "Deploy to staging", "1. make stage\n2. check /healthz and the error rate", "ok"); !errors.Is(err, ErrShrink) {
		t.Fatalf("a shrinking patch: %v", err)
	}

	// A hand edit is picked up.
	path := filepath.Join(f.Store.(SkillFiles).ScopeDir(scope), "deploy-to-staging.md")
	data, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(data), "make stage", "make staging", 1)), 0o600)
	if got, _ := f.Get(t.Context(), scope, "deploy to staging"); !strings.Contains(got.Body, "make staging") {
		t.Fatalf("hand edit not read: %q", got.Body)
	}

	// Eviction: the never-used go first, oldest first; then the least recently used.
	f.Create(t.Context(), scope, "B", "b", "b steps")
	f.Create(t.Context(), scope, "C", "c", "c steps")
	f.Touch(t.Context(), scope, "Deploy to staging")
	f.Touch(t.Context(), scope, "B")
	_, evicted, err = f.Create(t.Context(), scope, "D", "d", "d steps")
	if err != nil || !slices.Equal(evicted, []string{"C"}) {
		t.Fatalf("evicted %v, %v; want C (never used)", evicted, err)
	}
	f.Touch(t.Context(), scope, "D")
	_, evicted, _ = f.Create(t.Context(), scope, "E", "e", "e steps")
	if !slices.Equal(evicted, []string{"Deploy to staging"}) {
		t.Fatalf("evicted %v; want the least recently used", evicted)
	}
	// Scopes are apart.
	if other, _ := f.List(t.Context(), "person:slack:U1"); len(other) != 0 {
		t.Fatalf("another scope sees %d skills", len(other))
	}
	// A broken file hides only itself.
	os.WriteFile(filepath.Join(f.Store.(SkillFiles).ScopeDir(scope), "broken.md"), []byte("oops"), 0o600)
	skills, errs := f.List(t.Context(), scope)
	if len(skills) != 3 || errs == nil {
		t.Fatalf("List: %d skills, errors %v", len(skills), errs)
	}
	if err := f.Delete(t.Context(), scope, "B"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Get(t.Context(), scope, "B"); !errors.Is(err, ErrNoSkill) {
		t.Fatalf("a deleted skill: %v", err)
	}
}

// The index lists within its budget, most related first, and counts the
// rest; impressions are counted for what it listed only.
func TestSkillIndexBudget(t *testing.T) {
	f := Skills{Store: SkillFiles{Dir: t.TempDir()}, Max: 500, Now: clockAt(t0)}
	scope := "space:slack:T1"
	for i := range 300 {
		f.Create(t.Context(), scope, fmt.Sprintf("Procedure %03d", i), strings.Repeat("a long description of a routine task ", 4), "steps")
	}
	f.Create(t.Context(), scope, "Rotate the signing key", "when the signing key expires: rotate it with vault", "1. vault write")
	counter := &countingImpressions{}
	list, err := Index{Files: f, Impressions: counter, BudgetTokens: 500}.SkillIndex(t.Context(), agent.Caller{Learned: []string{scope}}, "how do I rotate the signing key?")
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Listed) == 0 || list.Listed[0].Name != "Rotate the signing key" {
		t.Fatalf("the related skill is not first: %+v", list.Listed[:min(3, len(list.Listed))])
	}
	tokens := 0
	for _, s := range list.Listed {
		tokens += agent.EstimateTokens(s.Name+": "+s.Description) + 2
	}
	if tokens > 500 || list.More != 301-len(list.Listed) || list.More == 0 {
		t.Fatalf("listed %d (%d tokens), %d more", len(list.Listed), tokens, list.More)
	}
	if counter.n != len(list.Listed) {
		t.Fatalf("%d impressions for %d listed", counter.n, len(list.Listed))
	}
	prompt := agent.TurnContext(list, agent.PlanView{})
	if !strings.Contains(prompt, "Rotate the signing key: when the signing key expires") || !strings.Contains(prompt, fmt.Sprintf("(%d more", list.More)) {
		t.Fatalf("prompt:\n%s", prompt)
	}
}

type countingImpressions struct{ n int }

func (c *countingImpressions) AddImpressions(_ context.Context, _ string, names []string) error {
	c.n += len(names)
	return nil
}
