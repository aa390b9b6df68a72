package bot_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/guard"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
)

// skillsAdmin serves /skills and /reflect from skill files and the store,
// as cmd/parley does; reflecting records the scope.
type skillsAdmin struct {
	files     evolve.Skills
	w         *world
	reflected []string
}

func (s *skillsAdmin) Skills(ctx context.Context, scope string) ([]evolve.Skill, error) {
	skills, _ := s.files.List(ctx, scope)
	return skills, nil
}

func (s *skillsAdmin) Rates(ctx context.Context, scope, name string) (evolve.Rates, error) {
	return s.w.db.SkillRates(ctx, scope, name)
}

func (s *skillsAdmin) ForgetSkill(ctx context.Context, scope, name string) error {
	return s.files.Delete(ctx, scope, name)
}

func (s *skillsAdmin) reflect() *evolve.Reflect {
	return &evolve.Reflect{
		Provider: s.w.runner.Provider, Files: s.files, Runs: s.w.db, Sessions: s.w.db, Memo: s.w.db, Revisions: s.w.db,
		Guard: func(_ context.Context, text string, existing []string) error { return guard.CheckWith(text, existing) },
	}
}

func (s *skillsAdmin) ReflectNow(ctx context.Context, scope string) ([]evolve.Change, error) {
	s.reflected = append(s.reflected, scope)
	return s.reflect().ReflectScope(ctx, scope)
}

// InstallSkill reads a folder as cmd/parley does (URLs are cmd/parley's
// own test's).
func (s *skillsAdmin) InstallSkill(ctx context.Context, scope, src string) (evolve.Change, error) {
	sk, err := evolve.ReadSkillFolder(os.DirFS(src))
	if err != nil {
		return evolve.Change{}, err
	}
	sk.Origin = src
	return s.reflect().Install(ctx, scope, sk)
}

func (s *skillsAdmin) History(ctx context.Context, scope string) ([]evolve.Revision, error) {
	return s.w.db.Revisions(ctx, scope, 20)
}

func (s *skillsAdmin) Undo(ctx context.Context, r evolve.Revision) error {
	return evolve.Undo(ctx, s.files, s.w.db, s.w.db, r)
}

// newSkillsWorld is a Slack world whose admin is slack:root, its router
// serving /skills and /reflect from admin.
func newSkillsWorld(t *testing.T) (*world, *skillsAdmin) {
	t.Helper()
	w := newWorld(t, "slack", bot.Access{Admins: []string{"slack:root"}})
	admin := &skillsAdmin{files: evolve.Skills{Store: evolve.SkillFiles{Dir: filepath.Join(t.TempDir(), "skills")}}, w: w}
	w.router = newRouter(t, bot.RouterConfig{
		Sessions: w.db, Inbox: w.db, KV: w.db, Runner: w.runner, Access: w.access, Reply: w.replies.factory,
		Learning: admin, Audit: w.db,
	}, w.fake)
	return w, admin
}

// TestSkillsCommands: /skills lists this place's skills only, /skills show
// and /skills forget act on this place's list — forgetting a team's skill
// takes an admin, one's own in a direct chat does not — and /reflect is
// an admin's.
func TestSkillsCommands(t *testing.T) {
	w, admin := newSkillsWorld(t)
	admin.files.Create(t.Context(), "space:slack:W", "Deploy", "when deploying: staging first", "1. staging\n2. prod")
	admin.files.Create(t.Context(), "person:slack:bob", "Bob's notes", "how Bob likes summaries", "1. short")

	channel := chat.Thread{Platform: "slack", Space: "W", Chat: "C1"}
	dm := chat.Thread{Platform: "slack", Space: "W", Chat: "D1"}
	bob := chat.User{Platform: "slack", ID: "bob", Name: "bob"}
	root := chat.User{Platform: "slack", ID: "root", Name: "root"}
	n := 0
	run := func(th chat.Thread, u chat.User, direct bool, args ...string) string {
		t.Helper()
		n++
		name := args[0]
		c := chat.Command{Key: "c" + string(rune('a'+n)), Thread: th, User: u, Name: name, Args: args[1:], Direct: direct}
		if err := w.router.HandleCommand(t.Context(), c); err != nil {
			t.Fatal(err)
		}
		w.router.Wait()
		_, private := w.fake.snapshot()
		return private[len(private)-1]
	}
	if got := run(channel, bob, false, "skills"); !strings.Contains(got, "1. Deploy — when deploying") || strings.Contains(got, "Bob's notes") {
		t.Fatalf("/skills in the channel: %q", got)
	}
	if got := run(dm, bob, true, "skills"); !strings.Contains(got, "Bob's notes") || strings.Contains(got, "Deploy") || strings.Contains(got, "INEFFECTIVE") {
		t.Fatalf("/skills in Bob's DM: %q", got)
	}
	// Read in five runs of which four ended in a real error: marked as
	// reflection sees it, and only that skill.
	for i := range 5 {
		run := evolve.Run{Scope: "person:slack:bob", SessionID: "s-bob", Author: "slack:bob", Key: fmt.Sprintf("kb%d", i), At: time.Now(),
			Signals: evolve.Signals{SkillsRead: []string{"Bob's notes"}, EndedInRealError: i > 0, RealErrors: min(i, 1)}}
		if err := w.db.RecordRun(t.Context(), run); err != nil {
			t.Fatal(err)
		}
	}
	if got := run(dm, bob, true, "skills"); !strings.Contains(got, "1. INEFFECTIVE — Bob's notes") {
		t.Fatalf("/skills of a failing skill: %q", got)
	}
	if got := run(channel, bob, false, "skills"); strings.Contains(got, "INEFFECTIVE") {
		t.Fatalf("/skills in the channel marks a skill: %q", got)
	}
	if got := run(channel, bob, false, "skills", "show", "1"); !strings.Contains(got, "1. staging") {
		t.Fatalf("/skills show 1: %q", got)
	}
	if got := run(channel, bob, false, "skills", "forget", "1"); !strings.Contains(got, "Only an admin") {
		t.Fatalf("bob forgetting the team's skill: %q", got)
	}
	if got := run(dm, bob, true, "skills", "forget", "1"); !strings.Contains(got, "Removed the skill Bob's notes") {
		t.Fatalf("bob forgetting his own: %q", got)
	}
	if got := run(channel, root, false, "skills", "forget", "9"); !strings.Contains(got, "Which one?") {
		t.Fatalf("out of range: %q", got)
	}
	if got := run(channel, root, false, "skills", "forget", "1"); !strings.Contains(got, "Removed the skill Deploy") {
		t.Fatalf("an admin forgetting: %q", got)
	}
	if got := run(channel, bob, false, "reflect"); !strings.Contains(got, "Only an admin") || len(admin.reflected) != 0 {
		t.Fatalf("bob's /reflect: %q, %v", got, admin.reflected)
	}
	// A reflection with something to reflect on: it recreates Deploy and
	// patches it; /skills history lists both, /skills undo puts them back.
	if err := w.db.RecordRun(t.Context(), evolve.Run{Scope: "space:slack:W", SessionID: "s", Author: "slack:bob", Key: "k", At: time.Now(),
		Signals: evolve.Signals{Corrected: true}}); err != nil {
		t.Fatal(err)
	}
	w.srv.Enqueue(
		llmtest.ToolCall("r1", "skill_create", `{"name":"Deploy","description":"when deploying","steps":"1. staging first\n2. then prod"}`),
		llmtest.ToolCall("r2", "skill_patch", `{"name":"Deploy","old":"then prod","new":"then prod, after the smoke tests"}`),
		llmtest.ToolCall("r3", "nothing_to_save", `{}`),
	)
	if got := run(channel, root, false, "reflect"); !strings.Contains(got, "created Deploy; patched Deploy") || admin.reflected[0] != "space:slack:W" {
		t.Fatalf("root's /reflect: %q, %v", got, admin.reflected)
	}
	if got := run(channel, bob, false, "skills", "history"); !strings.Contains(got, "1. patched skill deploy") || !strings.Contains(got, "2. created skill deploy") {
		t.Fatalf("/skills history: %q", got)
	}
	if got := run(channel, bob, false, "skills", "undo", "1"); !strings.Contains(got, "Only an admin") {
		t.Fatalf("bob's undo: %q", got)
	}
	if got := run(channel, root, false, "skills", "undo"); !strings.Contains(got, "Undone: patched skill deploy") {
		t.Fatalf("undo the patch: %q", got)
	}
	if s, _ := admin.files.Get(t.Context(), "space:slack:W", "Deploy"); strings.Contains(s.Body, "smoke") || !strings.Contains(s.Body, "then prod") {
		t.Fatalf("after undoing the patch: %q", s.Body)
	}
	if got := run(channel, root, false, "skills", "undo", "1"); !strings.Contains(got, "Undone: created skill deploy") {
		t.Fatalf("undo the creation: %q", got)
	}
	if _, err := admin.files.Get(t.Context(), "space:slack:W", "Deploy"); err == nil {
		t.Fatal("undoing a creation leaves the skill")
	}
	// Every forget and undo made in chat is in the audit log, by whom.
	entries, err := w.db.AuditEntries(t.Context(), bot.AuditFilter{Action: "skill."}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Actor+" "+e.Action+" "+e.Target+" "+e.Detail+" via "+e.Via)
	}
	want := []string{
		"slack:root skill.undo space:slack:W created skill deploy via chat",
		"slack:root skill.undo space:slack:W patched skill deploy via chat",
		"slack:root skill.forget space:slack:W Deploy via chat",
		"slack:bob skill.forget person:slack:bob Bob's notes via chat",
	}
	if !slices.Equal(got, want) {
		t.Errorf("audited %q, want %q", got, want)
	}
}
