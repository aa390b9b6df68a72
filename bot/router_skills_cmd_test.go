package bot_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/bot"
)

// skillsAdmin serves /skills and /reflect from skill files and the store,
// as cmd/parley does; reflecting records the scope.
type skillsAdmin struct {
	files     evolve.SkillFiles
	w         *world
	reflected []string
}

func (s *skillsAdmin) Skills(scope string) ([]evolve.Skill, error) {
	skills, _ := s.files.List(scope)
	return skills, nil
}

func (s *skillsAdmin) Rates(ctx context.Context, scope, name string) (evolve.Rates, error) {
	return s.w.db.SkillRates(ctx, scope, name)
}

func (s *skillsAdmin) ForgetSkill(scope, name string) error { return s.files.Delete(scope, name) }

func (s *skillsAdmin) ReflectNow(_ context.Context, scope string) ([]evolve.Change, error) {
	s.reflected = append(s.reflected, scope)
	return []evolve.Change{{Action: "created", Skill: "Deploy"}}, nil
}

// TestSkillsCommands: /skills lists this place's skills only, /skills show
// and /skills forget act on this place's list — forgetting a team's skill
// takes an admin, one's own in a direct chat does not — and /reflect is
// an admin's.
func TestSkillsCommands(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{Admins: []string{"slack:root"}})
	admin := &skillsAdmin{files: evolve.SkillFiles{Dir: filepath.Join(t.TempDir(), "skills")}, w: w}
	w.router = newRouter(t, bot.RouterConfig{
		Sessions: w.db, Inbox: w.db, KV: w.db, Runner: w.runner, Access: w.access, Reply: w.replies.factory,
		Learning: admin,
	}, w.fake)
	admin.files.Create("space:slack:W", "Deploy", "when deploying: staging first", "1. staging\n2. prod")
	admin.files.Create("person:slack:bob", "Bob's notes", "how Bob likes summaries", "1. short")

	channel := bot.Thread{Platform: "slack", Space: "W", Chat: "C1"}
	dm := bot.Thread{Platform: "slack", Space: "W", Chat: "D1"}
	bob := bot.User{Platform: "slack", ID: "bob", Name: "bob"}
	root := bot.User{Platform: "slack", ID: "root", Name: "root"}
	n := 0
	run := func(th bot.Thread, u bot.User, direct bool, args ...string) string {
		t.Helper()
		n++
		name := args[0]
		c := bot.Command{Key: "c" + string(rune('a'+n)), Thread: th, User: u, Name: name, Args: args[1:], Direct: direct}
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
	if got := run(dm, bob, true, "skills"); !strings.Contains(got, "Bob's notes") || strings.Contains(got, "Deploy") {
		t.Fatalf("/skills in Bob's DM: %q", got)
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
	if got := run(channel, root, false, "reflect"); !strings.Contains(got, "created Deploy") || admin.reflected[0] != "space:slack:W" {
		t.Fatalf("root's /reflect: %q, %v", got, admin.reflected)
	}
}
