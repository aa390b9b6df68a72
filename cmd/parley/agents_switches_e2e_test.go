package main

// An agent's switches end to end on Slack (docs/agents.md#switches): an
// agent with memory, reminders, evolution and the knowledge base off in
// #quiet; one that searches only the operator's documents in #docs; the
// default agent, with everything, in #general.

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/storetest"
)

func TestAgentSwitches(t *testing.T) {
	slk := newWorkspace(t) // C1
	slk.AddChannel("C2", "quiet", slacktest.Public)
	slk.AddChannel("C3", "docs", slacktest.Public)
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	env := slackEnv(slk)
	env["PARLEY_MEMORY_GUARD_MODEL"] = "off"
	env["PARLEY_AGENTS"] = `{
		"quiet": {"persona": "You are Quiet-Bot.", "memory": false, "reminders": false, "evolution": false, "kb": {"scopes": []}},
		"docs": {"persona": "You are Docs-Bot.", "kb": {"scopes": ["operator"]}}}`
	env["PARLEY_BINDINGS"] = `[{"place": "slack:channel:C2", "agent": "quiet"}, {"place": "slack:channel:C3", "agent": "docs"}]`
	cfg := platformConfig(t, filepath.Join(t.TempDir(), "data"), srv, env)
	startInstance(t, cfg)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a hang, not a timing assertion
	defer cancel()
	db, err := store.Open(ctx, cfg.DBPath()) // beside the running Parley, as an operator's CLI is
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.EditMemory(ctx, "slack:U1", agent.Facts, func([]string) ([]string, error) { return []string{"ana drinks tea"}, nil }); err != nil {
		t.Fatal(err)
	}
	kb := storetest.KeywordBase(t, db)
	storetest.Ingest(t, kb, "operator", "handbook.md", "The OPERATOR-DOC says: leave is 25 days.\n")
	storetest.Ingest(t, kb, "space:slack:"+slk.TeamID(), "team.md", "The SPACE-DOC says: leave is 30 days here.\n")

	ask := func(channel, text, answer string) {
		t.Helper()
		root := slk.PostUserMessage(channel, "U1", "<@"+slk.BotUserID()+"> "+text, "")
		err := slk.WaitFor(ctx, func() bool {
			return slices.ContainsFunc(slk.Thread(channel, root), func(m slacktest.Message) bool {
				return m.BotID != "" && m.Visible() == answer && !m.Streaming
			})
		})
		if err != nil {
			t.Fatalf("%s: no answer %q: %v", channel, answer, err)
		}
	}
	srv.Enqueue(llmtest.Text("Default here."))
	ask("C1", "how much leave?", "Default here.")
	srv.Enqueue(llmtest.Text("Quiet here."))
	ask("C2", "how much leave?", "Quiet here.")
	srv.Enqueue(llmtest.ToolCall("s1", "kb_search", `{"query":"leave days"}`), llmtest.Text("Docs here."))
	ask("C3", "how much leave?", "Docs here.")

	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls, want 4", len(reqs))
	}
	switched := []string{"memory", "remind", "schedule", "skill_read", "kb_search"}
	for _, c := range []struct {
		name     string
		req      llmtest.Request
		offered  bool // the switched tools
		remember bool // ana's memory in the prompt
	}{
		{"default in #general", reqs[0], true, true},
		{"quiet in #quiet", reqs[1], false, false},
		{"docs in #docs", reqs[2], true, true},
	} {
		offered := offeredTools(c.req)
		for _, tool := range switched {
			if slices.Contains(offered, tool) != c.offered {
				t.Errorf("%s: %s offered: %v, want %v (offered %v)", c.name, tool, !c.offered, c.offered, offered)
			}
		}
		system := c.req.LastText("system")
		if got := strings.Contains(system, "What you remember about") && strings.Contains(system, "ana drinks tea"); got != c.remember {
			t.Errorf("%s: the prompt carries ana's memory: %v, want %v", c.name, got, c.remember)
		}
	}
	// docs searched the operator's documents, not the workspace's.
	if result := reqs[3].LastText("tool"); !strings.Contains(result, "OPERATOR-DOC") || strings.Contains(result, "SPACE-DOC") {
		t.Errorf("docs' kb_search found:\n%s", result)
	}
	// Runs are recorded for reflection, quiet's excepted: the default's
	// in the workspace's scope, docs' in its own.
	for key, want := range map[string]int{
		"space:slack:" + slk.TeamID():             1,
		"agent:docs:space:slack:" + slk.TeamID():  1,
		"agent:quiet:space:slack:" + slk.TeamID(): 0,
	} {
		runs, err := db.Runs(ctx, key, time.Time{})
		if err != nil || len(runs) != want {
			t.Errorf("%s: %d runs (%v), want %d", key, len(runs), err, want)
		}
	}
	// parley agents ls says what the switches take.
	out, errOut, err := agentsCmd(t, cfg, "agents", "ls")
	if err != nil || !strings.Contains(out, "quiet    openai/gpt-4.1-mini  none      every enabled tool but memory, kb_search, skill_read, remind, schedule\n") ||
		!strings.Contains(out, "default  openai/gpt-4.1-mini  none      every enabled tool\n") {
		t.Errorf("parley agents ls: %v; %s\n%s", err, errOut, out)
	}
	// /memory still works for ana in #quiet: the memory is hers.
	slk.SlashCommand("/parley", "memory", "U1", "C2")
	if err := slk.WaitFor(ctx, func() bool { return len(slk.Ephemerals("U1")) > 0 }); err != nil {
		t.Fatalf("/memory in #quiet: %v", err)
	}
	if got := slk.Ephemerals("U1")[0].Text; !strings.Contains(got, "ana drinks tea") {
		t.Errorf("/memory in #quiet answered %q", got)
	}
}
