package main

// Costs in money end to end on Slack (docs/costs.md): a scripted
// conversation whose model calls report known token counts costs exactly
// what the price table says, in /status, /usage and /metrics alike, and
// the person's daily cost limit refuses the next turn and says so.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm/llmtest"
)

func TestCostsExact(t *testing.T) {
	slk := newWorkspace(t) // C1
	slk.AddUser("UADM", "root")
	model := llmtest.NewServer()
	t.Cleanup(model.Close)
	addr := freeAddr(t)
	env := slackEnv(slk)
	env["PARLEY_MEMORY_GUARD_MODEL"] = "off"
	env["PARLEY_HTTP_LISTEN"] = addr
	env["PARLEY_ACCESS_ADMINS"] = "slack:UADM"
	// $0.40 / $0.10 cached / $1.60 per million tokens.
	env["PARLEY_PROVIDERS"] = fmt.Sprintf(`{"priced": {"kind": "openai", "base_url": %q,
		"prices": {"gpt-4.1-mini": {"input": 0.4, "cached_input": 0.1, "output": 1.6}}}}`, model.OpenAIBaseURL())
	env["PARLEY_LLM_MODEL"] = "priced/gpt-4.1-mini"
	env["PARLEY_LIMITS_DAILY_COST"] = "0.01"
	cfg := platformConfig(t, filepath.Join(t.TempDir(), "data"), model, env)
	startInstance(t, cfg)

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang, not a timing assertion
	defer cancel()
	mention := "<@" + slk.BotUserID() + "> "
	answered := func(root, answer string) { t.Helper(); threadAnswered(t, ctx, slk, "C1", root, answer) }
	private := func(user, text, root string) string {
		t.Helper()
		return shownPrivately(t, ctx, slk, "C1", user, text, root)
	}

	// 6,000 plain + 4,000 cached + 500 out = 2,400 + 400 + 800 µ$ = $0.0036.
	first := llmtest.Text("First.")
	first.Usage = llmtest.Usage{InputTokens: 10000, CachedTokens: 4000, OutputTokens: 500}
	// 10,000 plain + 10,000 cached + 1,000 out = 4,000 + 1,000 + 1,600 µ$ = $0.0066.
	second := llmtest.Text("Second.")
	second.Usage = llmtest.Usage{InputTokens: 20000, CachedTokens: 10000, OutputTokens: 1000}
	model.Enqueue(first, second)
	root := slk.PostUserMessage("C1", "U1", mention+"plan the release", "")
	answered(root, "First.")
	if got := private("U1", "!status", root); !strings.Contains(got, "Cost: $0.0036 this conversation, $0.0036 yours today of $0.0100\n") {
		t.Fatalf("/status after the first turn:\n%s", got)
	}
	n := len(slk.Ephemerals("U1"))
	slk.PostUserMessage("C1", "U1", mention+"and the date?", root)
	answered(root, "Second.")
	// $0.0102 of $0.0100: past 80 % (and 100 %), told once.
	if err := slk.WaitFor(ctx, func() bool { return len(slk.Ephemerals("U1")) > n }); err != nil {
		t.Fatal("no warning at 80 % of the daily cost limit")
	}
	if got := slk.Ephemerals("U1")[n].Text; !strings.Contains(got, "You have used $0.0102 of today's budget of $0.0100 (102%)") {
		t.Fatalf("the warning said %q", got)
	}
	if got := private("U1", "!status", root); !strings.Contains(got, "Cost: $0.0102 this conversation, $0.0102 yours today of $0.0100\n") {
		t.Fatalf("/status after the second turn:\n%s", got)
	}

	// The limit is spent: the next message is refused, and no model call
	// is made for it.
	got := private("U1", mention+"one more?", root)
	if !strings.Contains(got, "You have used today's budget of $0.0100, so I will not answer this. It renews at 00:00 UTC.") {
		t.Fatalf("over the limit, the person was told %q", got)
	}
	if len(model.Requests()) != 2 {
		t.Fatalf("the model saw %d requests; want 2 (the refused turn makes none)", len(model.Requests()))
	}
	// The admin heard of it privately.
	if err := slk.WaitFor(ctx, func() bool {
		for _, e := range slk.Ephemerals("UADM") {
			if strings.Contains(e.Text, "slack:U1 has used their daily budget of $0.0100") {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the admin was not told: %+v", slk.Ephemerals("UADM"))
	}

	usage := private("UADM", "!usage", root)
	for _, line := range []string{
		"All: $0.0102 (31,500) / $0.0102 (31,500) / $0.0102 (31,500)",
		"By person:\n\n• slack:U1: $0.0102 / $0.0102 / $0.0102",
		"By agent:\n\n• default: $0.0102 / $0.0102 / $0.0102",
		"By channel:\n\n• slack:channel:C1: $0.0102 / $0.0102 / $0.0102",
	} {
		if !strings.Contains(usage, line) {
			t.Errorf("/usage lacks %q:\n%s", line, usage)
		}
	}
	if got := private("U1", "!usage", root); !strings.Contains(got, "Only an admin") {
		t.Errorf("/usage by a non-admin answered %q", got)
	}

	_, text := get(t, "http://"+addr+"/metrics")
	if v, ok := value(text, `parley_cost_dollars_total{agent="default",model="priced/gpt-4.1-mini"}`); !ok || fmt.Sprintf("%.6f", v) != "0.010200" {
		t.Errorf("parley_cost_dollars_total = %v (present %v), want 0.0102", v, ok)
	}
}
