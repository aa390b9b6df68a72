package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/evolve"
)

var skillTests = []test{
	{"RoundTrip", testSkillsRoundTrip},
	{"PerScope", testSkillsPerScope},
	{"RejectsBadArguments", testSkillsRejectBadArguments},
	{"SharedByReplicas", testSkillsSharedByReplicas},
}

const skillScope = "space:slack:T1"

// testSkillsRoundTrip: a skill reads back field for field (an installed
// one's origin and files too), a put of the same slug replaces it, a
// delete removes it and a second delete is no error.
func testSkillsRoundTrip(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	learnt := evolve.Skill{Slug: "deploy", Name: "Deploy", Description: "when deploying: staging first", Body: "1. staging\n2. prod",
		CreatedAt: epoch, UpdatedAt: epoch.Add(time.Hour), PatchCount: 2}
	installed := evolve.Skill{Slug: "pdf", Name: "pdf", Description: "when a PDF must be filled: 注意", Body: "Run scripts/fill.py.",
		CreatedAt: epoch, UpdatedAt: epoch, LastUsedAt: epoch.Add(2 * time.Hour), Origin: "https://skills.example/pdf/SKILL.md",
		Files: map[string]string{"scripts/fill.py": "print('hi')\n", "references/forms.md": "# Forms"}}
	steps := []struct {
		name string
		do   func() error
		want func() []evolve.Skill // after do: learnt may have changed
	}{
		{"empty", func() error { return nil }, func() []evolve.Skill { return nil }},
		{"put two", func() error {
			if err := db.PutSkill(ctx, skillScope, installed); err != nil {
				return err
			}
			return db.PutSkill(ctx, skillScope, learnt)
		}, func() []evolve.Skill { return []evolve.Skill{learnt, installed} }},
		{"replace", func() error {
			l := learnt
			l.Body, l.PatchCount, l.LastUsedAt = "1. staging\n2. smoke tests\n3. prod", 3, epoch.Add(3*time.Hour)
			learnt = l
			return db.PutSkill(ctx, skillScope, l)
		}, func() []evolve.Skill { return []evolve.Skill{learnt, installed} }},
		{"delete", func() error { return db.DeleteSkill(ctx, skillScope, "pdf") }, func() []evolve.Skill { return []evolve.Skill{learnt} }},
		{"delete again", func() error { return db.DeleteSkill(ctx, skillScope, "pdf") }, func() []evolve.Skill { return []evolve.Skill{learnt} }},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got, err := db.ListSkills(ctx, skillScope)
		if err != nil {
			t.Fatalf("%s: ListSkills: %v", st.name, err)
		}
		if diff := cmp.Diff(st.want(), got); diff != "" {
			t.Errorf("%s: skills (-want +got):\n%s", st.name, diff)
		}
	}
}

// testSkillsPerScope: a scope sees its own skills only; SkillScopes lists
// the scopes that have some.
func testSkillsPerScope(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	for _, scope := range []string{"space:slack:T2", skillScope, "person:slack:U1"} {
		if err := db.PutSkill(ctx, scope, evolve.Skill{Slug: "x", Name: "X " + scope, Body: "b", CreatedAt: epoch, UpdatedAt: epoch}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.ListSkills(ctx, skillScope)
	if err != nil || len(got) != 1 || got[0].Name != "X "+skillScope {
		t.Fatalf("ListSkills = %+v, %v", got, err)
	}
	scopes, err := db.SkillScopes(ctx)
	if diff := cmp.Diff([]string{"person:slack:U1", skillScope, "space:slack:T2"}, scopes); err != nil || diff != "" {
		t.Errorf("SkillScopes (-want +got), %v:\n%s", err, diff)
	}
}

func testSkillsRejectBadArguments(t *testing.T, s suite) {
	db := s.fresh(t)
	for _, tc := range []struct {
		name  string
		scope string
		s     evolve.Skill
	}{
		{"no scope", "", evolve.Skill{Slug: "a", Name: "A"}},
		{"no slug", skillScope, evolve.Skill{Name: "A"}},
		{"no name", skillScope, evolve.Skill{Slug: "a"}},
	} {
		if err := db.PutSkill(t.Context(), tc.scope, tc.s); err == nil {
			t.Errorf("%s: PutSkill accepted", tc.name)
		}
	}
}

// testSkillsSharedByReplicas: replicas on one database are handles on it;
// a skill learnt through one handle is in the next turn's skill index of
// another, and the other's read of it (its last use) is seen by the first.
func testSkillsSharedByReplicas(t *testing.T, s suite) {
	db1, reopen := s.open(t, Options{})
	db2 := reopen()
	ctx := t.Context()
	now := func() time.Time { return epoch }
	one, two := evolve.Skills{Store: db1, Now: now}, evolve.Skills{Store: db2, Now: now}
	if _, _, err := one.Create(ctx, skillScope, "Rotate the signing key", "when the signing key expires: rotate it with vault", "1. vault write"); err != nil {
		t.Fatal(err)
	}
	caller := agent.Caller{Learned: []string{skillScope}}
	list, err := evolve.Index{Files: two}.SkillIndex(ctx, caller, "the signing key expired")
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Listed) != 1 || list.Listed[0].Name != "Rotate the signing key" {
		t.Fatalf("the other replica's index: %+v", list)
	}
	if err := two.Touch(ctx, skillScope, "rotate the signing key"); err != nil {
		t.Fatal(err)
	}
	if got, err := one.Get(ctx, skillScope, "Rotate the signing key"); err != nil || !got.LastUsedAt.Equal(epoch) {
		t.Fatalf("the first replica reads %+v, %v", got, err)
	}
}
