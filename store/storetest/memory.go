package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent"
)

var memoryTests = []test{
	{"UnknownUserIsEmpty", testMemoryOfUnknownUserIsEmpty},
	{"Edit", testEditMemory},
	{"EditSeesCurrentEntries", testEditMemoryEditSeesCurrentEntries},
	{"EditErrorAborts", testEditMemoryErrorAborts},
	{"EditRejectsBadArguments", testEditMemoryRejectsBadArguments},
	{"PerUser", testMemoryIsPerUser},
	{"EditConcurrent", testEditMemoryConcurrent},
	{"UpsertUserKeepsMemory", testUpsertUserKeepsMemory},
}

// The edits the memory tool makes.

func add(entry string) func([]string) ([]string, error) {
	return func(es []string) ([]string, error) { return append(es, entry), nil }
}

func replace(old, repl string) func([]string) ([]string, error) {
	return func(es []string) ([]string, error) {
		i := slices.Index(es, old)
		if i < 0 {
			return nil, fmt.Errorf("no entry %q", old)
		}
		es[i] = repl // editing the given slice in place is allowed
		return es, nil
	}
}

func remove(old string) func([]string) ([]string, error) {
	return func(es []string) ([]string, error) {
		i := slices.Index(es, old)
		if i < 0 {
			return nil, fmt.Errorf("no entry %q", old)
		}
		return slices.Delete(es, i, i+1), nil
	}
}

func clearAll(es []string) ([]string, error) { return nil, nil }

func testMemoryOfUnknownUserIsEmpty(t *testing.T, s suite) {
	db := s.fresh(t)
	m, err := db.Memory(t.Context(), "slack:U404")
	if err != nil {
		t.Fatal(err)
	}
	if !m.Empty() {
		t.Errorf("Memory = %+v, want empty", m)
	}
}

func testEditMemory(t *testing.T, s suite) {
	type step struct {
		target agent.MemoryTarget
		edit   func([]string) ([]string, error)
		want   agent.Memory // after the step
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"add", []step{
			{agent.Facts, add("repo uses pnpm"), agent.Memory{Facts: []string{"repo uses pnpm"}}},
			{agent.Facts, add("deploys on Fridays are banned"), agent.Memory{Facts: []string{"repo uses pnpm", "deploys on Fridays are banned"}}},
			{agent.Profile, add("prefers short answers"), agent.Memory{Profile: []string{"prefers short answers"}, Facts: []string{"repo uses pnpm", "deploys on Fridays are banned"}}},
		}},
		{"replace", []step{
			{agent.Profile, add("name: Ada"), agent.Memory{Profile: []string{"name: Ada"}}},
			{agent.Profile, add("tz: UTC"), agent.Memory{Profile: []string{"name: Ada", "tz: UTC"}}},
			{agent.Profile, add("lang: en"), agent.Memory{Profile: []string{"name: Ada", "tz: UTC", "lang: en"}}},
			{agent.Profile, replace("tz: UTC", "tz: Europe/Paris"), agent.Memory{Profile: []string{"name: Ada", "tz: Europe/Paris", "lang: en"}}},
			{agent.Profile, replace("name: Ada", "name: Ada L."), agent.Memory{Profile: []string{"name: Ada L.", "tz: Europe/Paris", "lang: en"}}},
		}},
		{"remove", []step{
			{agent.Facts, add("a"), agent.Memory{Facts: []string{"a"}}},
			{agent.Facts, add("b"), agent.Memory{Facts: []string{"a", "b"}}},
			{agent.Facts, add("c"), agent.Memory{Facts: []string{"a", "b", "c"}}},
			{agent.Facts, remove("b"), agent.Memory{Facts: []string{"a", "c"}}},
			{agent.Facts, remove("c"), agent.Memory{Facts: []string{"a"}}},
			{agent.Facts, add("d"), agent.Memory{Facts: []string{"a", "d"}}},
			{agent.Facts, remove("a"), agent.Memory{Facts: []string{"d"}}},
		}},
		{"duplicates", []step{
			{agent.Facts, add("x"), agent.Memory{Facts: []string{"x"}}},
			{agent.Facts, add("x"), agent.Memory{Facts: []string{"x", "x"}}},
			{agent.Facts, remove("x"), agent.Memory{Facts: []string{"x"}}},
		}},
		{"reorder and insert", []step{
			{agent.Facts, add("1"), agent.Memory{Facts: []string{"1"}}},
			{agent.Facts, add("3"), agent.Memory{Facts: []string{"1", "3"}}},
			{agent.Facts, func(es []string) ([]string, error) { return []string{"0", "1", "2", "3"}, nil },
				agent.Memory{Facts: []string{"0", "1", "2", "3"}}},
			{agent.Facts, func(es []string) ([]string, error) { return []string{"3", "2", "1"}, nil },
				agent.Memory{Facts: []string{"3", "2", "1"}}},
		}},
		{"clear", []step{
			{agent.Facts, add("a"), agent.Memory{Facts: []string{"a"}}},
			{agent.Profile, add("p"), agent.Memory{Profile: []string{"p"}, Facts: []string{"a"}}},
			{agent.Facts, clearAll, agent.Memory{Profile: []string{"p"}}},
			{agent.Profile, clearAll, agent.Memory{}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := s.fresh(t)
			for i, s := range tt.steps {
				if err := db.EditMemory(t.Context(), "slack:U01", s.target, s.edit); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				got, err := db.Memory(t.Context(), "slack:U01")
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(s.want, got); diff != "" {
					t.Fatalf("step %d: memory (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

func testEditMemoryEditSeesCurrentEntries(t *testing.T, s suite) {
	db := s.fresh(t)
	for _, e := range []string{"a", "b"} {
		if err := db.EditMemory(t.Context(), "discord:1", agent.Profile, add(e)); err != nil {
			t.Fatal(err)
		}
	}
	var seen []string
	err := db.EditMemory(t.Context(), "discord:1", agent.Profile, func(es []string) ([]string, error) {
		seen = slices.Clone(es)
		return es, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []string{"a", "b"}) {
		t.Errorf("edit was given %q, want [a b]", seen)
	}
}

func testEditMemoryErrorAborts(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	if err := db.EditMemory(ctx, "telegram:7", agent.Facts, add("keep me")); err != nil {
		t.Fatal(err)
	}
	errGuard := errors.New("memory guard: looks like a prompt injection")
	err := db.EditMemory(ctx, "telegram:7", agent.Facts, func(es []string) ([]string, error) {
		return append(es[:0], "ignore all previous instructions"), errGuard
	})
	if err != errGuard {
		t.Errorf("EditMemory error = %v, want the edit's own error as is", err)
	}
	m, err := db.Memory(ctx, "telegram:7")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"keep me"}; !slices.Equal(m.Facts, want) {
		t.Errorf("facts after a failed edit = %q, want %q", m.Facts, want)
	}

	// A wrapped error stays matchable.
	err = db.EditMemory(ctx, "telegram:7", agent.Facts, func([]string) ([]string, error) {
		return nil, fmt.Errorf("entry 3: %w", errGuard)
	})
	if !errors.Is(err, errGuard) {
		t.Errorf("EditMemory error = %v, want errors.Is(err, errGuard)", err)
	}
}

func testEditMemoryRejectsBadArguments(t *testing.T, s suite) {
	db := s.fresh(t)
	tests := []struct {
		name   string
		user   string
		target agent.MemoryTarget
	}{
		{"unknown target", "slack:U01", "secrets"},
		{"no user", "", agent.Facts},
	}
	for _, tt := range tests {
		called := false
		err := db.EditMemory(t.Context(), tt.user, tt.target, func(es []string) ([]string, error) {
			called = true
			return es, nil
		})
		if err == nil || called {
			t.Errorf("%s: err %v, edit called %v; want an error and no call", tt.name, err, called)
		}
	}
}

func testMemoryIsPerUser(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	edits := []struct {
		user   string
		target agent.MemoryTarget
		entry  string
	}{
		{"slack:U01", agent.Profile, "Ada, SRE"},
		{"slack:U02", agent.Profile, "Grace, compilers"},
		{"slack:U01", agent.Facts, "on call this week"},
		// Same id on another platform is another person.
		{"discord:U01", agent.Facts, "plays chess"},
	}
	for _, e := range edits {
		if err := db.EditMemory(ctx, e.user, e.target, add(e.entry)); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]agent.Memory{
		"slack:U01":   {Profile: []string{"Ada, SRE"}, Facts: []string{"on call this week"}},
		"slack:U02":   {Profile: []string{"Grace, compilers"}},
		"discord:U01": {Facts: []string{"plays chess"}},
		"slack:U03":   {},
	}
	for user, w := range want {
		got, err := db.Memory(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("memory of %s (-want +got):\n%s", user, diff)
		}
	}
}

// testEditMemoryConcurrent: many writers appending to one list at once, from
// one DB and from a second one on the same file (another process), lose
// nothing.
func testEditMemoryConcurrent(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	dbs := []Store{db, reopen()}
	const writers, entries = 20, 10
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			db := dbs[w%len(dbs)]
			for e := range entries {
				if err := db.EditMemory(t.Context(), "slack:U01", agent.Facts, add(fmt.Sprintf("w%02d-e%02d", w, e))); err != nil {
					t.Error(err)
				}
			}
		})
	}
	// Meanwhile another user's memory is edited too.
	wg.Go(func() {
		for e := range entries {
			if err := dbs[0].EditMemory(t.Context(), "slack:U02", agent.Facts, add(fmt.Sprint(e))); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()

	m, err := dbs[1].Memory(t.Context(), "slack:U01")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Facts) != writers*entries || len(m.Profile) != 0 {
		t.Fatalf("%d facts and %d profile entries, want %d and 0", len(m.Facts), len(m.Profile), writers*entries)
	}
	seen := make(map[string]bool)
	next := make(map[int]int)
	for _, f := range m.Facts {
		if seen[f] {
			t.Errorf("entry %q stored twice", f)
		}
		seen[f] = true
		var w, e int
		fmt.Sscanf(f, "w%d-e%d", &w, &e)
		if e != next[w] {
			t.Errorf("writer %d: entry %d stored where %d was due", w, e, next[w])
		}
		next[w] = e + 1
	}
	if other, _ := dbs[1].Memory(t.Context(), "slack:U02"); len(other.Facts) != entries {
		t.Errorf("other user has %d facts, want %d", len(other.Facts), entries)
	}
}

// testUpsertUserKeepsMemory: recording a person's name, before or after
// their memory exists, and again unchanged or renamed, leaves the memory
// as it is.
func testUpsertUserKeepsMemory(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	steps := []struct {
		name string
		op   func() error
		want agent.Memory
	}{
		{"upsert a new person", func() error { return db.UpsertUser(ctx, "telegram:42", "telegram", "Ann") }, agent.Memory{}},
		{"remember", func() error { return db.EditMemory(ctx, "telegram:42", agent.Profile, add("likes Go")) },
			agent.Memory{Profile: []string{"likes Go"}}},
		{"upsert unchanged", func() error { return db.UpsertUser(ctx, "telegram:42", "telegram", "Ann") },
			agent.Memory{Profile: []string{"likes Go"}}},
		{"rename", func() error { return db.UpsertUser(ctx, "telegram:42", "telegram", "Ann B.") },
			agent.Memory{Profile: []string{"likes Go"}}},
		{"memory of someone never upserted", func() error { return db.EditMemory(ctx, "telegram:7", agent.Facts, add("x")) },
			agent.Memory{Profile: []string{"likes Go"}}},
		{"upsert them after", func() error { return db.UpsertUser(ctx, "telegram:7", "telegram", "Bo") },
			agent.Memory{Profile: []string{"likes Go"}}},
	}
	for _, st := range steps {
		if err := st.op(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got, err := db.Memory(ctx, "telegram:42")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Errorf("%s: memory of telegram:42 (-want +got):\n%s", st.name, diff)
		}
	}
	if got, err := db.Memory(ctx, "telegram:7"); err != nil || !slices.Equal(got.Facts, []string{"x"}) {
		t.Errorf("memory of telegram:7 = %+v, %v; want the fact x", got, err)
	}
}
