package main

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/store"
)

// TestImportSkillFiles: an upgrade loses nothing. The skill files of an
// earlier build are in the store after the first start, with their dates
// and counts; the folder is kept renamed, so a second start imports
// nothing; a skill the store already has (another replica imported it)
// is left as it is.
func TestImportSkillFiles(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	files := evolve.SkillFiles{Dir: filepath.Join(dir, "skills")}
	at := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	for _, f := range []struct {
		scope string
		s     evolve.Skill
	}{
		{"space:slack:T1", evolve.Skill{Slug: "deploy", Name: "Deploy", Description: "when deploying", Body: "1. staging", CreatedAt: at, UpdatedAt: at, PatchCount: 3, LastUsedAt: at}},
		{"agent:my_bot:person:slack:U1", evolve.Skill{Slug: "notes", Name: "Notes", Description: "how U1 likes notes", Body: "1. short", CreatedAt: at, UpdatedAt: at}},
		{"space:slack:T2", evolve.Skill{Slug: "taken", Name: "Taken", Description: "from the file", Body: "file", CreatedAt: at, UpdatedAt: at}},
	} {
		if err := files.PutSkill(ctx, f.scope, f.s); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(files.ScopeDir("space:slack:T1"), "broken.md"), []byte("no front matter"), 0o600)
	if err := db.PutSkill(ctx, "space:slack:T2", evolve.Skill{Slug: "taken", Name: "Taken", Description: "from the store", Body: "store", CreatedAt: at, UpdatedAt: at}); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	for range 2 { // the second start finds nothing to import
		if err := importSkillFiles(ctx, files, db, []string{"my_bot"}, logger); err != nil {
			t.Fatal(err)
		}
	}
	skills := evolve.Skills{Store: db}
	if s, err := skills.Get(ctx, "space:slack:T1", "Deploy"); err != nil || s.PatchCount != 3 || !s.LastUsedAt.Equal(at) || s.Body != "1. staging" {
		t.Errorf("Deploy = %+v, %v", s, err)
	}
	if _, err := skills.Get(ctx, "agent:my_bot:person:slack:U1", "Notes"); err != nil {
		t.Errorf("a named agent's skill: %v", err)
	}
	if s, _ := skills.Get(ctx, "space:slack:T2", "Taken"); s.Description != "from the store" {
		t.Errorf("an imported skill overwrote the store's: %+v", s)
	}
	if _, err := os.Stat(files.Dir + ".imported"); err != nil {
		t.Errorf("the files are not kept: %v", err)
	}
	if n := strings.Count(log.String(), "imported the skill files into the store"); n != 1 || !strings.Contains(log.String(), "skills=2") ||
		!strings.Contains(log.String(), "broken.md") {
		t.Errorf("the log says it %d times:\n%s", n, log.String())
	}
}
