package bot_test

import (
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm/anthropic"
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

	r := switchingRouter(t, w, "local/small", w.runner)

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

// TestModelSwitchMidTurn: /model while an answer is under way leaves the
// running turn on the model it started with — its remaining calls go to
// it — and the next turn is answered by the new one.
func TestModelSwitchMidTurn(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	gate := &gateTool{entered: make(chan struct{}), release: make(chan struct{})}
	w.runner.Tools = append(w.runner.Tools, gate)
	// The new model is Claude on the same fake: its calls go to another path.
	claude := &agent.Runner{RunnerConfig: w.runner.RunnerConfig}
	claude.Provider = anthropic.New(anthropic.Config{APIKey: "k", BaseURL: w.srv.AnthropicBaseURL()})
	r := switchingRouter(t, w, "anthropic/claude-sonnet-4-5", claude)

	w.srv.Enqueue(llmtest.ToolCall("b1", "build", `{}`), llmtest.Text("Built."), llmtest.Text("Claude here."))
	first := msg("slack", "C1", "1.1", "alice", "k1", "build it")
	first.Mentioned = true
	if err := r.HandleMessage(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	<-gate.entered // the turn is between two model calls
	c := chat.Command{Key: "m1", Thread: first.Thread, User: first.User, Name: "model", Args: []string{"anthropic/claude-sonnet-4-5"}}
	if err := r.HandleCommand(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	close(gate.release)
	r.Wait()
	if got := w.replies.final("k1"); len(got) != 1 || got[0] != "Built." {
		t.Fatalf("the running turn answered %q, want Built.", got)
	}

	if err := r.HandleMessage(t.Context(), msg("slack", "C1", "1.1", "alice", "k2", "and now?")); err != nil {
		t.Fatal(err)
	}
	r.Wait()
	if got := w.replies.final("k2"); len(got) != 1 || got[0] != "Claude here." {
		t.Fatalf("the next turn answered %q, want Claude's", got)
	}
	var paths []string
	for _, q := range w.srv.Requests() {
		paths = append(paths, q.Path)
	}
	if want := []string{"/v1/chat/completions", "/v1/chat/completions", "/v1/messages"}; !slices.Equal(paths, want) {
		t.Errorf("model calls %v, want the running turn's on the old model and the next turn's on the new one %v", paths, want)
	}
}

// switchingRouter is a router over w whose default agent calls
// openai/big and may be switched to model, which other runs.
func switchingRouter(t *testing.T, w *world, model string, other *agent.Runner) *bot.Router {
	t.Helper()
	ags, err := bot.NewAgents([]bot.Agent{{
		Name: bot.DefaultAgent, Runner: w.runner, Model: "openai/big",
		Switch: map[string]*agent.Runner{model: other},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return newRouter(t, bot.RouterConfig{
		Sessions: w.db, Inbox: w.db, KV: w.db, Runner: w.runner, Agents: ags,
		Commands: bot.NewSharedCommands(w.db, w.db, agent.MemoryLimits{}),
		Access:   w.access, Reply: w.replies.factory, Logger: slog.New(slog.DiscardHandler),
	}, w.fake)
}
