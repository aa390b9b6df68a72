package main

// /model end to end on Slack (docs/agents.md#switching-the-model): a
// thread switched to a second model server's model answers from it, a
// stranger may not switch it, the switch outlives a restart, and
// /model reset goes back.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm/llmtest"
)

func TestModelSwitchedPerConversation(t *testing.T) {
	slk := newWorkspace(t) // C1
	hosted, local := llmtest.NewServer(), llmtest.NewServer()
	t.Cleanup(hosted.Close)
	t.Cleanup(local.Close)
	env := slackEnv(slk)
	env["PARLEY_MEMORY_GUARD_MODEL"] = "off"
	env["PARLEY_PROVIDERS"] = fmt.Sprintf(`{"local": {"kind": "openai", "base_url": %q}}`, local.OpenAIBaseURL())
	env["PARLEY_LLM_SWITCHABLE"] = "local/llama3.2"
	cfg := platformConfig(t, filepath.Join(t.TempDir(), "data"), hosted, env) // openai is hosted
	p := startInstance(t, cfg)

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang, not a timing assertion
	defer cancel()
	mention := "<@" + slk.BotUserID() + "> "
	answered := func(root, answer string) { t.Helper(); threadAnswered(t, ctx, slk, "C1", root, answer) }
	// command posts !model args in the thread as user and returns what
	// only they were shown.
	command := func(user, args, root string) string {
		t.Helper()
		return shownPrivately(t, ctx, slk, "C1", user, strings.TrimSpace("!model "+args), root)
	}

	hosted.Enqueue(llmtest.Text("Hosted here."))
	root := slk.PostUserMessage("C1", "U1", mention+"plan the release", "")
	answered(root, "Hosted here.")

	if got := command("U1", "", root); !strings.Contains(got, "Model: openai/gpt-4.1-mini\n") || !strings.Contains(got, "May switch to: local/llama3.2") {
		t.Fatalf("/model answered %q", got)
	}
	// bo did not start the conversation and is no admin.
	if got := command("U2", "local/llama3.2", root); !strings.Contains(got, "Only the person who started this conversation") {
		t.Fatalf("bo's /model answered %q", got)
	}
	if got := command("U1", "openai/gpt-4o", root); !strings.Contains(got, "not a model this conversation may switch to") {
		t.Fatalf("/model openai/gpt-4o answered %q", got)
	}
	if got := command("U1", "local/llama3.2", root); !strings.Contains(got, "Model: local/llama3.2 (switched with /model)") {
		t.Fatalf("/model local/llama3.2 answered %q", got)
	}
	local.Enqueue(llmtest.Text("Local here."))
	slk.PostUserMessage("C1", "U1", mention+"and the date?", root)
	answered(root, "Local here.")
	if l := local.Requests(); len(l) != 1 || l[0].Model() != "llama3.2" || !strings.Contains(string(l[0].Body), "plan the release") {
		t.Fatalf("local saw %d requests (want 1, with the transcript, for llama3.2)", len(l))
	}

	// A restart over the same database: the thread keeps its model.
	p.stop()
	p.start(t)
	local.Enqueue(llmtest.Text("Local again."))
	slk.PostUserMessage("C1", "U1", mention+"still you?", root)
	answered(root, "Local again.")
	if got := command("U1", "", root); !strings.Contains(got, "Model: local/llama3.2 (switched with /model)") {
		t.Fatalf("/model after the restart answered %q", got)
	}

	if got := command("U1", "reset", root); !strings.Contains(got, "Model: openai/gpt-4.1-mini\n") {
		t.Fatalf("/model reset answered %q", got)
	}
	hosted.Enqueue(llmtest.Text("Hosted again."))
	slk.PostUserMessage("C1", "U1", mention+"back?", root)
	answered(root, "Hosted again.")
	if h, l := len(hosted.Requests()), len(local.Requests()); h != 2 || l != 2 {
		t.Fatalf("hosted saw %d requests, local %d; want 2 and 2", h, l)
	}
}
