package bot_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
)

// TestModelWhoMaySwitchAndWhat: /model NAME in alice's shared thread is
// hers or an admin's; bob is refused; in his own direct chat bob may.
// Only a model of the agent's list may be chosen.
func TestModelWhoMaySwitchAndWhat(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{Admins: []string{"slack:root"}})
	w.srv.Enqueue(llmtest.Text("Hi alice."), llmtest.Text("Hi bob."))
	alice := msg("slack", "C1", "1.1", "alice", "k1", "hello")
	alice.Mentioned = true
	w.router.HandleMessage(t.Context(), alice)
	bobDM := msg("slack", "D9", "", "bob", "k2", "hello")
	bobDM.Direct = true
	w.router.HandleMessage(t.Context(), bobDM)
	w.router.Wait()

	ags, err := bot.NewAgents([]bot.Agent{{
		Name: bot.DefaultAgent, Runner: w.runner, Model: "openai/big",
		Switch: map[string]*agent.Runner{"local/small": w.runner},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := newRouter(t, bot.RouterConfig{
		Sessions: w.db, Inbox: w.db, KV: w.db, Runner: w.runner, Agents: ags,
		Commands: bot.NewSharedCommands(w.db, w.db, agent.MemoryLimits{}),
		Access:   w.access, Reply: w.replies.factory, Logger: slog.New(slog.DiscardHandler),
	}, w.fake)

	bob := chat.User{Platform: "slack", ID: "bob", Name: "bob"}
	root := chat.User{Platform: "slack", ID: "root", Name: "root"}
	tests := []struct {
		name   string
		user   chat.User
		thread chat.Thread
		direct bool
		args   []string
		want   string
	}{
		{"the list", bob, alice.Thread, false, nil, "Model: openai/big\nMay switch to: local/small"},
		{"a stranger in a shared thread", bob, alice.Thread, false, []string{"local/small"}, "Only the person who started this conversation or an admin"},
		{"a stranger's reset", bob, alice.Thread, false, []string{"reset"}, "Only the person who started"},
		{"a model not in the list", alice.User, alice.Thread, false, []string{"openai/other"}, `"openai/other" is not a model this conversation may switch to`},
		{"the starter", alice.User, alice.Thread, false, []string{"local/small"}, "Model: local/small (switched with /model)"},
		{"shown switched", bob, alice.Thread, false, nil, "Model: local/small (switched with /model)"},
		{"an admin resets", root, alice.Thread, false, []string{"reset"}, "Model: openai/big\n"},
		{"an admin switches", root, alice.Thread, false, []string{"use", "local/small"}, "Model: local/small (switched with /model)"},
		{"the person in a DM", bob, bobDM.Thread, true, []string{"local/small"}, "Model: local/small (switched with /model)"},
		{"no conversation yet", bob, chat.Thread{Platform: "slack", Space: "W", Chat: "C7", ID: "9.9"}, false, []string{"local/small"}, "No conversation here yet"},
		{"too many words", alice.User, alice.Thread, false, []string{"a", "b"}, "Usage: /model"},
	}
	for i, tt := range tests {
		c := chat.Command{Key: "m" + string(rune('a'+i)), Thread: tt.thread, User: tt.user, Name: "model", Args: tt.args, Direct: tt.direct}
		if err := r.HandleCommand(t.Context(), c); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		_, private := w.fake.snapshot()
		if last := private[len(private)-1]; !strings.HasPrefix(last, tt.user.ID+"|") || !strings.Contains(last, tt.want) {
			t.Errorf("%s: /model %v by %s answered %q; want %q", tt.name, tt.args, tt.user.ID, last, tt.want)
		}
	}
}
