package bot_test

import (
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
)

// TestAgentsLearnApart: in one workspace, #help's support agent and
// #eng's eng agent each see only their own skills and self-memo, the
// default agent (#random) those it had before there were agents, and a
// run is recorded where its agent learns; in a DM bound to eng, eng's
// skills of that person, not the default's. An agent with evolution
// off (#quiet) is offered no skill_read, lists no skills, and its runs
// are not recorded.
func TestAgentsLearnApart(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	files := evolve.Skills{Store: evolve.SkillFiles{Dir: filepath.Join(t.TempDir(), "skills")}}
	read, err := evolve.SkillRead(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	learns := []string{bot.DefaultAgent, "eng", "support"}
	scopes := []bot.Scope{{Kind: bot.ScopeSpace, ID: "slack:W"}, {Kind: bot.ScopePerson, ID: "slack:ann"}}
	// A skill and a note in each (agent, scope), named after both.
	for _, ag := range learns {
		for _, s := range scopes {
			key := s.Of(ag).Key()
			if _, _, err := files.Create(t.Context(), key, "skill-"+ag+"-"+string(s.Kind), "when "+ag+" works in a "+string(s.Kind), "1. Steps."); err != nil {
				t.Fatal(err)
			}
			if err := w.db.SetMemo(t.Context(), key, evolve.MemoTeam, "NOTE-"+ag+"-"+string(s.Kind)); err != nil {
				t.Fatal(err)
			}
		}
	}
	runner := func(persona string, evolves bool) *agent.Runner {
		r := &agent.Runner{RunnerConfig: agent.RunnerConfig{
			Provider: openai.New(openai.Config{APIKey: "sk-test", BaseURL: w.srv.OpenAIBaseURL()}),
			Sessions: w.db, Memory: w.db, Persona: persona, Logger: slog.New(slog.DiscardHandler),
		}}
		if evolves {
			r.Skills = evolve.Index{Files: files, Memos: w.db}
			r.Tools = []agent.Tool{read}
		}
		return r
	}
	w.runner.Skills, w.runner.Tools = evolve.Index{Files: files, Memos: w.db}, []agent.Tool{read}
	ags, err := bot.NewAgents([]bot.Agent{
		{Name: bot.DefaultAgent, Runner: w.runner},
		{Name: "eng", Runner: runner("Eng.", true)},
		{Name: "support", Runner: runner("Support.", true)},
		{Name: "quiet", Runner: runner("Quiet.", false), NoLearning: true},
	}, []bot.Binding{
		{Place: place(t, "slack:channel:C1"), Agent: "support"},
		{Place: place(t, "slack:channel:C2"), Agent: "eng"},
		{Place: place(t, "slack:channel:C3"), Agent: "quiet"},
		{Place: place(t, "slack:dm"), Agent: "eng"},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := newRouter(t, bot.RouterConfig{
		Sessions: w.db, Inbox: w.db, KV: w.db, Runner: w.runner, Agents: ags,
		Commands: bot.NewSharedCommands(w.db, w.db, agent.MemoryLimits{}),
		Access:   w.access, Reply: w.replies.factory, Logger: slog.New(slog.DiscardHandler),
		Runs: evolve.Recorder{Runs: w.db, Memos: w.db}, Now: func() time.Time { return time.Unix(1_800_000_000, 0) },
		Learning: &skillsAdmin{files: files, w: w},
	}, w.fake)

	tests := []struct {
		name   string
		chat   string
		direct bool
		sees   []string // skills and notes the prompt lists, as ag-kind
		scope  string   // where its run is recorded; "" none
	}{
		{"support in #help", "C1", false, []string{"support-space"}, "agent:support:space:slack:W"},
		{"eng in #eng", "C2", false, []string{"eng-space"}, "agent:eng:space:slack:W"},
		{"default in #random", "C4", false, []string{"default-space"}, "space:slack:W"},
		{"eng in a DM", "D1", true, []string{"eng-space", "eng-person"}, "agent:eng:person:slack:ann"},
		{"quiet in #quiet", "C3", false, nil, ""},
	}
	all := []string{"default-space", "default-person", "eng-space", "eng-person", "support-space", "support-person"}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w.srv.Enqueue(llmtest.Text("Done."))
			m := msg("slack", tt.chat, "", "ann", "k"+string(rune('a'+i)), "help me")
			m.Mentioned, m.Direct = true, tt.direct
			if err := r.HandleMessage(t.Context(), m); err != nil {
				t.Fatal(err)
			}
			r.Wait()
			reqs := w.srv.Requests()
			req := reqs[len(reqs)-1]
			body := string(req.Body)
			for _, s := range all {
				want := false
				for _, x := range tt.sees {
					want = want || x == s
				}
				if got := strings.Contains(body, "skill-"+s); got != want {
					t.Errorf("skill %s listed: %v, want %v", s, got, want)
				}
				if got := strings.Contains(body, "NOTE-"+s); got != want {
					t.Errorf("note %s in the prompt: %v, want %v", s, got, want)
				}
			}
			if offered := strings.Contains(body, `"skill_read"`); offered != (tt.scope != "") {
				t.Errorf("skill_read offered: %v", offered)
			}
			recorded := false
			for _, key := range []string{"space:slack:W", "agent:eng:space:slack:W", "agent:support:space:slack:W", "agent:eng:person:slack:ann", "agent:quiet:space:slack:W"} {
				runs, err := w.db.Runs(t.Context(), key, time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				for _, run := range runs {
					if run.Key != m.Key {
						continue
					}
					if key != tt.scope {
						t.Errorf("the run is recorded in %s, want %q", key, tt.scope)
					}
					recorded = true
				}
			}
			if recorded != (tt.scope != "") {
				t.Errorf("the run was recorded: %v, want in %q", recorded, tt.scope)
			}
		})
	}

	// /skills in a place lists what the agent answering there learnt.
	for i, c := range []struct{ chat, want, not string }{
		{"C1", "skill-support-space", "skill-eng-space"},
		{"C2", "skill-eng-space", "skill-support-space"},
		{"C4", "skill-default-space", "skill-eng-space"},
		{"C3", "Learning from use is off for the agent that answers here.", "skill-"},
	} {
		m := msg("slack", c.chat, "", "ann", "", "")
		if err := r.HandleCommand(t.Context(), chat.Command{Key: "s" + string(rune('a'+i)), Thread: m.Thread, User: m.User, Name: "skills"}); err != nil {
			t.Fatal(err)
		}
		_, private := w.fake.snapshot()
		if got := private[len(private)-1]; !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("/skills in %s answered %q; want %q, not %q", c.chat, got, c.want, c.not)
		}
	}
}
