package bot_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
	"github.com/parleybot/parley/bot"
)

// pricedRunner is a runner over w's model server, whose model openai/m
// costs $1 per million prompt tokens: a token is 1,000 nanodollars.
func pricedRunner(t *testing.T, w *world) *agent.Runner {
	t.Helper()
	reg := llm.NewRegistry()
	reg.UseModels(llm.Models{Prices: map[string]llm.Price{"openai/m": {Input: 1}}})
	reg.Register("openai", openai.New(openai.Config{APIKey: "sk-test", BaseURL: w.srv.OpenAIBaseURL()}))
	provider, err := reg.Resolve("openai/m")
	if err != nil {
		t.Fatal(err)
	}
	return &agent.Runner{RunnerConfig: agent.RunnerConfig{Provider: provider, Sessions: w.db, Memory: w.db, Logger: slog.New(slog.DiscardHandler)}}
}

// TestAgentMonthlyBudget: an agent's budget.monthly warns the admins at
// 80 %, and at 100 % refuses new turns for everyone, admins included,
// telling the person why and the admins once; last month's costs do not
// count.
func TestAgentMonthlyBudget(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	runner := pricedRunner(t, w)
	ags, err := bot.NewAgents([]bot.Agent{{Name: bot.DefaultAgent, Runner: runner, Model: "openai/m", Budget: 0.01}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Last month's spending is not this month's.
	if err := w.db.RecordCost(t.Context(), bot.Cost{At: now.AddDate(0, -1, 0), User: "slack:alice", Agent: bot.DefaultAgent,
		Model: "openai/m", Nanos: 1e9, Priced: true}); err != nil {
		t.Fatal(err)
	}
	r := newRouter(t, bot.RouterConfig{
		Sessions: w.db, Inbox: w.db, KV: w.db, Runner: runner, Agents: ags, Costs: w.db,
		Commands: bot.NewSharedCommands(w.db, w.db, agent.MemoryLimits{}),
		Access:   bot.Access{Admins: []string{"slack:root"}}, Reply: w.replies.factory,
		Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return now },
	}, w.fake)

	first, second := llmtest.Text("One."), llmtest.Text("Two.")
	first.Usage = llmtest.Usage{InputTokens: 8000}  // $0.0080: 80 %
	second.Usage = llmtest.Usage{InputTokens: 2000} // $0.0100: all of it
	w.srv.Enqueue(first, second)
	say := func(user, key, text string) []string {
		t.Helper()
		m := msg("slack", "C1", "1.1", user, key, text)
		m.Mentioned = true
		_, before := w.fake.snapshot()
		r.HandleMessage(t.Context(), m)
		r.Wait()
		_, private := w.fake.snapshot()
		return private[len(before):]
	}
	const warning = "root|Agent default has spent $0.0080 of its monthly budget of $0.0100 (80%); at 100% it refuses new turns until 1 January (UTC)."
	if got := say("alice", "k1", "hello"); len(got) != 1 || got[0] != warning {
		t.Fatalf("at 80 %%, privately: %q; want the admins' warning alone", got)
	}
	if got := say("alice", "k2", "more"); len(got) != 0 {
		t.Fatalf("the warning again, or something else: %q", got)
	}
	refusal := "This assistant has spent its budget for the month ($0.0100), so I will not answer until it renews on 1 January (UTC). An admin can raise it."
	note := "root|Agent default has spent its monthly budget of $0.0100 (budget.monthly): it refuses new turns until 1 January (UTC)."
	if got := say("alice", "k3", "and more"); len(got) != 2 || got[0] != note || got[1] != "alice|"+refusal {
		t.Fatalf("at 100 %%, privately: %q; want the admins' note, then alice's refusal", got)
	}
	// Admins too; the admins' note went out once.
	if got := say("root", "k4", "me?"); len(got) != 1 || got[0] != "root|"+refusal {
		t.Fatalf("an admin over the budget, privately: %q", got)
	}
	if n := len(w.srv.Requests()); n != 2 {
		t.Fatalf("the model saw %d requests; want 2 (refused turns make none)", n)
	}
	sum, err := w.db.SumCosts(t.Context(), bot.CostFilter{Since: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Agent: bot.DefaultAgent})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Nanos != 1e7 || sum.Calls != 2 || sum.Usage.InputTokens != 10000 {
		t.Fatalf("this month's costs: %+v", sum)
	}
}
