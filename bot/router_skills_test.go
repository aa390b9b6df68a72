package bot_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/bot"
)

// TestSkillsInUse: a skill in the channel's scope is listed in the next
// turn's system prompt (an impression), the model reads it (an
// invocation), the person corrects the run (an edit after a hit) — and a
// skill learnt in Alice's direct chat never shows in the channel.
func TestSkillsInUse(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	files := evolve.Skills{Store: evolve.SkillFiles{Dir: filepath.Join(t.TempDir(), "skills")}}
	w.runner.Skills = evolve.Index{Files: files, Impressions: w.db, Memos: w.db}
	read, err := evolve.SkillRead(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.runner.Tools = append(w.runner.Tools, read)
	ctx := t.Context()
	space, alice := "space:slack:W", "person:slack:alice"
	if _, _, err := files.Create(t.Context(), space, "Release notes", "when asked for release notes: read CHANGELOG.md first", "1. Read CHANGELOG.md.\n2. Group by feature."); err != nil {
		t.Fatal(err)
	}
	if err := w.db.SetMemo(t.Context(), space, evolve.MemoTeam, "This team wants release notes grouped by team."); err != nil {
		t.Fatal(err)
	}
	if err := w.db.SetMemo(t.Context(), alice, evolve.MemoSelf, "PRIVATE-MEMO about Alice."); err != nil {
		t.Fatal(err)
	}
	if _, _, err := files.Create(t.Context(), alice, "Alice's diary", "private: how Alice likes her notes", "1. Secret steps."); err != nil {
		t.Fatal(err)
	}

	w.srv.Enqueue(llmtest.ToolCall("c1", "skill_read", `{"name":"release notes"}`), llmtest.Text("Here are the notes."))
	m := msg("slack", "C1", "1.1", "alice", "k1", "write the release notes")
	m.Mentioned = true
	w.router.HandleMessage(ctx, m)
	w.router.Wait()

	reqs := w.srv.Requests()
	system := string(reqs[0].Body)
	if !strings.Contains(system, "Release notes: when asked for release notes") {
		t.Fatalf("the skill is not in the prompt:\n%s", system)
	}
	if strings.Contains(system, "diary") || strings.Contains(system, "PRIVATE-MEMO") {
		t.Fatal("a skill or note of Alice's direct chats is in a channel's prompt")
	}
	if !strings.Contains(system, "Your own notes about working here") || !strings.Contains(system, "grouped by team") {
		t.Fatalf("the team's self-memo is not in the prompt:\n%s", system)
	}
	if !strings.Contains(string(reqs[1].Body), "1. Read CHANGELOG.md.") {
		t.Fatalf("skill_read did not return the steps:\n%s", reqs[1].Body)
	}
	if s, _ := files.Get(t.Context(), space, "Release notes"); s.LastUsedAt.IsZero() {
		t.Error("reading a skill does not refresh lastUsedAt")
	}

	w.srv.Enqueue(llmtest.Text("Fixed."))
	fix := msg("slack", "C1", "1.1", "alice", "k2", "wrong, group them by team")
	w.router.HandleMessage(ctx, fix)
	w.router.Wait()

	r, err := w.db.SkillRates(ctx, space, "Release notes")
	if err != nil {
		t.Fatal(err)
	}
	if r.Impressions != 2 || r.Invocations != 1 || r.EditAfterHit != 1 || r.Ineffective != 0 {
		t.Fatalf("rates = %+v; want 2 impressions, 1 invocation, 1 edit after hit", r)
	}
	if r.InvocationRate() != 0.5 || r.EditAfterHitRate() != 1 {
		t.Fatalf("invocation rate %v, edit-after-hit %v", r.InvocationRate(), r.EditAfterHitRate())
	}
	if a, _ := w.db.SkillRates(ctx, alice, "Alice's diary"); a.Impressions != 0 {
		t.Fatalf("Alice's private skill was shown %d times in the channel", a.Impressions)
	}
}
