package main

// Agents bound to places end to end on Slack (docs/agents.md): #help and
// #eng bound to two agents with their own persona, model server and
// tools; a third channel left to the default agent.

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/spf13/cobra"
)

func TestAgentsBoundToChannels(t *testing.T) {
	slk := newWorkspace(t) // C1
	slk.AddChannel("C2", "eng", slacktest.Public)
	slk.AddChannel("C3", "random", slacktest.Public)
	// Unscripted, hosted holds its answer until released: a turn that
	// runs while a binding changes.
	started, release := make(chan struct{}, 1), make(chan struct{})
	hosted := llmtest.NewServer(llmtest.WithResponder(func(llmtest.Request) llmtest.Reply {
		started <- struct{}{}
		<-release
		return llmtest.Text("Default, to the end.")
	}))
	local := llmtest.NewServer()
	t.Cleanup(hosted.Close)
	t.Cleanup(local.Close)
	env := slackEnv(slk)
	env["PARLEY_MEMORY_GUARD_MODEL"] = "off"
	env["PARLEY_ACCESS_ADMINS"] = "slack:U1"
	env["PARLEY_TOOLS_SHELL_ENABLED"] = "true"
	env["PARLEY_PROVIDERS"] = fmt.Sprintf(`{"local": {"kind": "openai", "base_url": %q}}`, local.OpenAIBaseURL())
	env["PARLEY_AGENTS"] = `{
		"support": {"persona": "You are Support-Bot for #help.", "model": "openai/gpt-4.1-nano", "tools": ["memory", "kb_search"]},
		"eng": {"persona": "You are Eng-Bot for #eng.", "model": "local/llama3.2", "fallback": [], "tools": ["memory", "shell"]}}`
	env["PARLEY_BINDINGS"] = `[{"place": "slack:channel:C2", "agent": "eng"}, {"place": "slack:channel:C1", "agent": "support"}]`
	cfg := platformConfig(t, filepath.Join(t.TempDir(), "data"), hosted, env) // openai is hosted
	startInstance(t, cfg)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a hang, not a timing assertion
	defer cancel()
	ask := func(channel, text, answer string) {
		t.Helper()
		root := slk.PostUserMessage(channel, "U1", "<@"+slk.BotUserID()+"> "+text, "")
		threadAnswered(t, ctx, slk, channel, root, answer)
	}

	hosted.Enqueue(llmtest.Text("Support here."))
	ask("C1", "my invoice is wrong", "Support here.")
	local.Enqueue(llmtest.Text("Eng here."))
	ask("C2", "why is the build red?", "Eng here.")
	hosted.Enqueue(llmtest.Text("Default here."))
	ask("C3", "anything new?", "Default here.")

	h, l := hosted.Requests(), local.Requests()
	if len(h) != 2 || len(l) != 1 {
		t.Fatalf("hosted saw %d requests, local %d; want 2 and 1", len(h), len(l))
	}
	checks := []struct {
		name    string
		req     llmtest.Request
		model   string
		persona string
		tools   []string
		asked   string
	}{
		{"support in #help", h[0], "gpt-4.1-nano", "Support-Bot", []string{"kb_search", "memory"}, "my invoice is wrong"},
		{"eng in #eng", l[0], "llama3.2", "Eng-Bot", []string{"memory", "shell"}, "why is the build red?"},
		{"default in #random", h[1], "gpt-4.1-mini", "", nil, "anything new?"},
	}
	for _, c := range checks {
		if c.req.Model() != c.model {
			t.Errorf("%s: model %q, want %q", c.name, c.req.Model(), c.model)
		}
		system := c.req.LastText("system")
		for _, persona := range []string{"Support-Bot", "Eng-Bot"} {
			if strings.Contains(system, persona) != (persona == c.persona) {
				t.Errorf("%s: the system prompt has persona %s: %v", c.name, persona, strings.Contains(system, persona))
			}
		}
		if !strings.Contains(c.req.LastUserText(), c.asked) {
			t.Errorf("%s: was not asked %q", c.name, c.asked)
		}
		offered := offeredTools(c.req)
		if c.tools != nil && !slices.Equal(offered, c.tools) {
			t.Errorf("%s: offered %v, want %v", c.name, offered, c.tools)
		}
		if c.tools == nil && !slices.Contains(offered, "shell") {
			t.Errorf("%s: the default agent was not offered every tool: %v", c.name, offered)
		}
	}

	// /agent in each channel: which agent, why, its model and tools.
	for i, c := range []struct {
		channel string
		want    []string
	}{
		{"C1", []string{"Agent: support", "bound here by slack:channel:C1", "Model: openai/gpt-4.1-nano", "Tools: memory, kb_search"}},
		{"C2", []string{"Agent: eng", "bound here by slack:channel:C2", "Model: local/llama3.2\n", "Tools: memory, shell"}},
		{"C3", []string{"Agent: default", "no binding covers this place", "Model: openai/gpt-4.1-mini"}},
	} {
		slk.SlashCommand("/parley", "agent", "U1", c.channel)
		if err := slk.WaitFor(ctx, func() bool { return len(slk.Ephemerals("U1")) > i }); err != nil {
			t.Fatalf("no answer to /parley agent in %s: %v", c.channel, err)
		}
		got := slk.Ephemerals("U1")[i].Text
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("/agent in %s answered %q; want it to say %q", c.channel, got, w)
			}
		}
	}

	// /status names the agent.
	slk.SlashCommand("/parley", "status", "U2", "C2")
	if err := slk.WaitFor(ctx, func() bool { return len(slk.Ephemerals("U2")) > 0 }); err != nil {
		t.Fatalf("no answer to /parley status: %v", err)
	}
	if got := slk.Ephemerals("U2")[0].Text; !strings.Contains(got, "You are slack:U2 here.\nAgent: eng (/agent says why)\n") {
		t.Errorf("/status in #eng answered %q", got)
	}

	// An admin binds #random to eng in chat; bo, who is none, may not.
	slk.SlashCommand("/parley", "agent use eng", "U2", "C3")
	if err := slk.WaitFor(ctx, func() bool { return len(slk.Ephemerals("U2")) > 1 }); err != nil {
		t.Fatalf("bo was not answered: %v", err)
	}
	if got := slk.Ephemerals("U2")[1].Text; !strings.Contains(got, "Only an admin") {
		t.Fatalf("bo's /agent use was answered %q", got)
	}
	slk.SlashCommand("/parley", "agent use eng", "U1", "C3")
	if err := slk.WaitFor(ctx, func() bool { return len(slk.Ephemerals("U1")) > 3 }); err != nil {
		t.Fatalf("ana's /agent use was not answered: %v", err)
	}
	if got := slk.Ephemerals("U1")[3].Text; !strings.Contains(got, "slack:channel:C3 is bound to eng") || !strings.Contains(got, "Why: bound here by slack:channel:C3, with /agent use") {
		t.Fatalf("/agent use answered %q", got)
	}
	local.Enqueue(llmtest.Text("Eng in random."))
	ask("C3", "and now?", "Eng in random.")
	if l := local.Requests(); len(l) != 2 || !strings.Contains(l[1].LastText("system"), "Eng-Bot") {
		t.Fatalf("after /agent use, local saw %d requests", len(l))
	}
	// parley agents ls lists the agents and both kinds of binding.
	out, errOut, err := agentsCmd(t, cfg, "agents", "ls")
	if err != nil {
		t.Fatalf("parley agents ls: %v; %s", err, errOut)
	}
	for _, want := range []string{
		"default  openai/gpt-4.1-mini", "eng      local/llama3.2       none      memory, shell",
		"support  openai/gpt-4.1-nano", "every enabled tool",
		"slack:channel:C2  eng      configuration", "slack:channel:C1  support  configuration", "slack:channel:C3  eng      /agent use",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("parley agents ls lacks %q:\n%s", want, out)
		}
	}
	// parley agents export: the same bindings, to paste into the file.
	out, errOut, err = agentsCmd(t, cfg, "agents", "export")
	if want := `bindings:
  - {place: "slack:channel:C2", agent: eng}
  - {place: "slack:channel:C1", agent: support}
  - {place: "slack:channel:C3", agent: eng}  # made in chat with /agent use
`; err != nil || out != want {
		t.Errorf("parley agents export: %v; %s\n%s\nwant\n%s", err, errOut, out, want)
	}
	slk.SlashCommand("/parley", "agent reset", "U1", "C3")
	if err := slk.WaitFor(ctx, func() bool { return len(slk.Ephemerals("U1")) > 4 }); err != nil {
		t.Fatalf("/agent reset was not answered: %v", err)
	}
	if got := slk.Ephemerals("U1")[4].Text; !strings.Contains(got, "Agent: default") {
		t.Fatalf("/agent reset answered %q", got)
	}

	// A turn keeps the agent it started with: #random is bound to eng
	// while the default agent's answer is being written.
	root := slk.PostUserMessage("C3", "U1", "<@"+slk.BotUserID()+"> long one", "")
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the turn never reached the model")
	}
	slk.SlashCommand("/parley", "agent use eng", "U1", "C3")
	if err := slk.WaitFor(ctx, func() bool { return len(slk.Ephemerals("U1")) > 5 }); err != nil {
		t.Fatalf("/agent use mid-turn was not answered: %v", err)
	}
	close(release)
	if err := slk.WaitFor(ctx, func() bool {
		for _, m := range slk.Thread("C3", root) {
			if m.BotID != "" && m.Visible() == "Default, to the end." && !m.Streaming {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the turn did not finish on its agent: %v; thread %+v", err, slk.Thread("C3", root))
	}
	if n := len(local.Requests()); n != 2 {
		t.Fatalf("local saw %d requests during the default's turn, want still 2", n)
	}
	local.Enqueue(llmtest.Text("Eng from now on."))
	ask("C3", "and next?", "Eng from now on.")
}

// agentsCmd runs `parley agents …` over cfg.
func agentsCmd(t *testing.T, cfg *config.Config, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return subcommand(t, cfg, newAgentsCmd, args...)
}

// subcommand runs one of parley's commands (made by build) over cfg, as
// the command line would.
func subcommand(t *testing.T, cfg *config.Config, build func(*environment, func() (*config.Config, error)) *cobra.Command, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
		lookupEnv: func(string) (string, bool) { return "", false }}
	root := &cobra.Command{Use: "parley", SilenceUsage: true, SilenceErrors: true}
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.AddCommand(build(e, func() (*config.Config, error) { return cfg, nil }))
	root.SetArgs(args)
	err = root.ExecuteContext(t.Context())
	return out.String(), errOut.String(), err
}

// offeredTools are the names of the tools a request offered, sorted.
func offeredTools(r llmtest.Request) []string {
	var names []string
	tools, _ := r.JSON["tools"].([]any)
	for _, raw := range tools {
		tool, _ := raw.(map[string]any)
		fn, _ := tool["function"].(map[string]any)
		if name, _ := fn["name"].(string); name != "" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// TestAgentsBoundOnTelegram: a forum topic's binding beats its forum's,
// the forum's holds its other topics, private chats have theirs, and a
// group no binding holds gets the default agent — one model server, two
// models.
func TestAgentsBoundOnTelegram(t *testing.T) {
	t.Parallel()
	tg := telegramtest.NewServer()
	t.Cleanup(tg.Close)
	tg.AddUser(tgAna, "Ana", "ana")
	tg.AddGroup(tgGroup, "team")
	tg.AddForum(tgForum, "dev")
	release, design := tg.AddTopic(tgForum, "release"), tg.AddTopic(tgForum, "design")
	model := llmtest.NewServer()
	t.Cleanup(model.Close)
	env := map[string]string{
		"PARLEY_TELEGRAM_ENABLED":            "true",
		"PARLEY_TELEGRAM_TOKEN":              tg.Token(),
		"PARLEY_TELEGRAM_API_URL":            tg.URL,
		"PARLEY_ACCESS_TELEGRAM_ALLOW_USERS": fmt.Sprint(tgAna),
		"PARLEY_MEMORY_GUARD_MODEL":          "off",
		"PARLEY_AGENTS": `{"release": {"persona": "You are Release-Bot.", "model": "openai/gpt-4.1-nano"},
			"forum": {"persona": "You are Forum-Bot."}, "private": {"persona": "You are DM-Bot.", "tools": []}}`,
		"PARLEY_BINDINGS": fmt.Sprintf(`[{"place": "telegram:chat:%d", "agent": "forum"}, {"place": "telegram:dm", "agent": "private"},
			{"place": "telegram:topic:%d/%d", "agent": "release"}]`, tgForum, tgForum, release),
	}
	w := &tgWorld{tg: tg, model: model, instance: startInstance(t, platformConfig(t, filepath.Join(t.TempDir(), "data"), model, env))}
	ctx := waitCtx(t)

	asks := []struct {
		in      telegramtest.Incoming
		topic   int
		answer  string
		model   string
		persona string
		tools   bool
	}{
		{telegramtest.Incoming{Chat: tgForum, Topic: release, From: tgAna, Text: "ship it?", Mention: true}, release, "Release here.", "gpt-4.1-nano", "Release-Bot", true},
		{telegramtest.Incoming{Chat: tgForum, Topic: design, From: tgAna, Text: "which font?", Mention: true}, design, "Forum here.", "gpt-4.1-mini", "Forum-Bot", true},
		{telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "just us?"}, 0, "DM here.", "gpt-4.1-mini", "DM-Bot", false},
		{telegramtest.Incoming{Chat: tgGroup, From: tgAna, Text: "lunch?", Mention: true}, 0, "Default here.", "gpt-4.1-mini", "", true},
	}
	for i, a := range asks {
		model.Enqueue(llmtest.Text(a.answer))
		w.tg.Post(a.in)
		w.botSays(t, ctx, a.in.Chat, a.topic, a.answer)
		req := model.Requests()[i]
		system := req.LastText("system")
		if req.Model() != a.model {
			t.Errorf("%q: model %q, want %q", a.answer, req.Model(), a.model)
		}
		for _, persona := range []string{"Release-Bot", "Forum-Bot", "DM-Bot"} {
			if strings.Contains(system, persona) != (persona == a.persona) {
				t.Errorf("%q: persona %s in the system prompt: %v", a.answer, persona, !(persona == a.persona))
			}
		}
		if got := len(offeredTools(req)) > 0; got != a.tools {
			t.Errorf("%q: tools offered %v", a.answer, offeredTools(req))
		}
	}
}

// TestAgentsBoundOnDiscord: a channel's binding holds the threads Parley
// opens in it, for the answers and for /agent asked in the thread.
func TestAgentsBoundOnDiscord(t *testing.T) {
	t.Parallel()
	w := startDiscord(t, map[string]string{
		"PARLEY_MEMORY_GUARD_MODEL": "off",
		"PARLEY_AGENTS":             `{"general": {"persona": "You are Gen-Bot.", "model": "openai/gpt-4.1-nano", "tools": ["memory"]}}`,
		"PARLEY_BINDINGS":           fmt.Sprintf(`[{"place": "discord:channel:%s", "agent": "general"}]`, dcChannel),
	}, nil)
	ctx := waitCtx(t)
	w.model.Enqueue(llmtest.Text("Gen here."))
	m := w.dc.Post(discordtest.Incoming{Channel: dcChannel, Author: dcAna, Content: "plan the release", Mention: true})
	w.botSays(t, ctx, m, "Gen here.")
	w.model.Enqueue(llmtest.Text("Still Gen."))
	w.dc.Post(discordtest.Incoming{Channel: m, Author: dcAna, Content: "when?"})
	w.botSays(t, ctx, m, "Still Gen.")
	for i, req := range w.model.Requests() {
		if req.Model() != "gpt-4.1-nano" || !strings.Contains(req.LastText("system"), "Gen-Bot") || !slices.Equal(offeredTools(req), []string{"memory"}) {
			t.Errorf("request %d: model %q, tools %v, Gen-Bot in the system prompt: %v", i, req.Model(), offeredTools(req), strings.Contains(req.LastText("system"), "Gen-Bot"))
		}
	}
	if _, err := w.dc.Command(m, dcAna, "agent", discordtest.CommandOption{Name: "show", Type: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.dc.WaitFor(ctx, func() bool { return len(w.dc.Ephemeral(dcAna)) > 0 }); err != nil {
		t.Fatalf("/agent was not answered: %v", err)
	}
	if got := strings.Join(w.dc.Ephemeral(dcAna), "\n"); !strings.Contains(got, "Agent: general") || !strings.Contains(got, "bound here by discord:channel:"+dcChannel) {
		t.Fatalf("/agent in the thread answered %q", got)
	}
}
