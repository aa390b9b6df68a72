package main

// Learning from use end to end on the chat platforms: a person corrects
// Parley on Telegram or Slack (the real adapters against telegramtest and
// slacktest, the whole runtime over SQLite, llmtest as the model); with
// Parley stopped, the operator runs `parley reflect` over the same data
// dir, and the skill it writes is in the next turn's prompt after a
// restart — in the scope it was learnt in, and nowhere else.

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// The skill every test here teaches Parley.
const (
	deploySkill = `{"name":"Deploy","description":"when asked to deploy: staging first","steps":"1. Deploy to staging.\n2. Check it, then prod."}`
	deployIndex = "- Deploy: when asked to deploy: staging first" // its line in the prompt's skill index
	deployStep  = "1. Deploy to staging."
	correction  = "wrong, always deploy to staging first"
)

// operatorCmd runs `parley <args>` in-process as the operator would at the
// terminal, over cfg (the running test's data dir), and returns its
// stdout, stderr and error.
func operatorCmd(t *testing.T, cfg *config.Config, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
		lookupEnv: func(string) (string, bool) { return "", false }}
	load := func() (*config.Config, error) { return cfg, nil }
	root := &cobra.Command{Use: "parley", SilenceUsage: true, SilenceErrors: true}
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.AddCommand(newReflectCmd(e, load), newSkillsCmd(e, load))
	root.SetArgs(args)
	err = root.ExecuteContext(waitCtx(t))
	return out.String(), errOut.String(), err
}

// reflectDeploy runs `parley reflect` with the model scripted to create the
// Deploy skill (the memory guard's judge passes it), then save nothing
// more. It checks what reflect says it did in scope, that the packet the
// model reflected on held the correction, and that the skill file is in
// the scope's directory.
func reflectDeploy(t *testing.T, cfg *config.Config, model *llmtest.Server, scope string) {
	t.Helper()
	before := len(model.Requests())
	model.Enqueue(
		llmtest.ToolCall("r1", "skill_create", deploySkill),
		llmtest.Text("SAFE"), // the memory guard's judge
		llmtest.ToolCall("r2", "nothing_to_save", `{}`),
	)
	out, errOut, err := operatorCmd(t, cfg, "reflect")
	if err != nil || !strings.Contains(out, scope+`: created "Deploy"`) {
		t.Fatalf("reflect: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	reqs := model.Requests()
	if len(reqs) != before+3 || model.Pending() != 0 {
		t.Fatalf("reflect made %d model calls with %d replies left, want 3 and 0", len(reqs)-before, model.Pending())
	}
	if packet := reqs[before].LastUserText(); !strings.Contains(packet, "CORRECTED") || !strings.Contains(packet, correction) {
		t.Fatalf("the packet lacks the correction:\n%s", packet)
	}
	if judged := string(reqs[before+1].Body); !strings.Contains(judged, "You vet entries") {
		t.Fatalf("the second call is not the memory guard's judge:\n%s", judged)
	}
	if s := storedSkill(t, openedStore(t, cfg.DBPath()), scope, "Deploy"); !strings.Contains(s.Body, deployStep) {
		t.Fatalf("the skill in the store: %+v", s)
	}
}

// skillRow is the row `parley skills ls` prints for a skill in a scope,
// split into its columns: scope, skill, origin, updated, patches,
// impressions, invoked, edit-after-hit, ineffective.
func skillRow(out, scope, skill string) []string {
	for line := range strings.SplitSeq(out, "\n") {
		if f := strings.Fields(line); len(f) == 9 && f[0] == scope && f[1] == skill {
			return f
		}
	}
	return nil
}

// TestLearnFromACorrectionOnTelegram: Ana corrects Parley in her private
// chat; with Parley stopped, `parley reflect` turns the correction into a
// skill of her own scope; after a restart her next turn's prompt lists it
// and the model reads its steps. In the team's group the skill is neither
// listed nor readable, and `parley skills ls` counts only Ana's turn.
func TestLearnFromACorrectionOnTelegram(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, nil, nil)
	ctx := waitCtx(t)
	scope := fmt.Sprintf("person:telegram:%d", tgAna)

	w.model.Enqueue(llmtest.Text("Deployed to prod."))
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "deploy the app"})
	w.botSays(t, ctx, tgAna, 0, "Deployed to prod.")
	w.model.Enqueue(llmtest.Text("Sorry, staging first next time."))
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: correction})
	w.botSays(t, ctx, tgAna, 0, "Sorry, staging first next time.")

	w.stop()
	reflectDeploy(t, w.cfg, w.model, scope)
	w.start(t)

	// Ana, in her private chat: the skill is listed, read, followed.
	before := len(w.model.Requests())
	w.model.Enqueue(llmtest.ToolCall("c1", "skill_read", `{"name":"Deploy"}`), llmtest.Text("Staging first, then prod."))
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "deploy again"})
	w.botSays(t, ctx, tgAna, 0, "Staging first, then prod.")
	reqs := w.model.Requests()[before:]
	if len(reqs) != 2 {
		t.Fatalf("%d model calls for Ana's turn, want 2 (skill_read, then the answer)", len(reqs))
	}
	// The skills related to a turn come after the conversation, where they
	// do not disturb the cached prefix (docs/models.md).
	if turn := reqs[0].LastUserText(); !strings.Contains(turn, deployIndex) {
		t.Fatalf("Ana's prompt does not list the skill:\n%s", turn)
	}
	if result := reqs[1].LastText("tool"); !strings.Contains(result, deployStep) {
		t.Fatalf("skill_read did not give Ana's turn the steps: %q", result)
	}

	// Bo, in the group (addressed to the bot): another scope. The skill is
	// not listed, and reading it by name fails.
	before = len(w.model.Requests())
	w.model.Enqueue(llmtest.ToolCall("g1", "skill_read", `{"name":"Deploy"}`), llmtest.Text("No deploy notes here."))
	asked := w.tg.Post(telegramtest.Incoming{Chat: tgGroup, From: tgBo, Text: "deploy the app", Mention: true})
	if answer := w.botSays(t, ctx, tgGroup, 0, "No deploy notes here."); answer.ReplyTo != asked.MessageID {
		t.Fatalf("the group's answer replies to message %d, want %d", answer.ReplyTo, asked.MessageID)
	}
	reqs = w.model.Requests()[before:]
	if len(reqs) != 2 {
		t.Fatalf("%d model calls for Bo's turn, want 2", len(reqs))
	}
	if system, turn := reqs[0].LastText("system"), reqs[0].LastUserText(); system == "" || strings.Contains(system+turn, "Deploy:") {
		t.Fatalf("the group's prompt lists Ana's skill (or has none):\n%s\n%s", system, turn)
	}
	if result := reqs[1].LastText("tool"); !strings.Contains(result, "no such skill") || strings.Contains(result, deployStep) {
		t.Fatalf("skill_read in the group gave %q, want an error without the steps", result)
	}
	for _, m := range w.tg.BotMessages(tgGroup) {
		if strings.Contains(m.Visible, "staging") {
			t.Fatalf("the group was shown Ana's skill: %q", m.Visible)
		}
	}

	// The rates: one listing (Ana's turn; the group's did not list it),
	// read once, no correction, no error.
	w.stop()
	out, errOut, err := operatorCmd(t, w.cfg, "skills", "ls")
	if err != nil {
		t.Fatalf("skills ls: %v\n%s", err, errOut)
	}
	row := skillRow(out, scope, "Deploy")
	if row == nil {
		t.Fatalf("skills ls has no row for Deploy in %s:\n%s", scope, out)
	}
	for _, col := range []struct {
		name string
		i    int
		want string
	}{
		{"origin", 2, "learnt"},
		{"patches", 4, "0"},
		{"impressions", 5, "1"},
		{"invoked", 6, "100%"},
		{"edit-after-hit", 7, "0%"},
		{"ineffective", 8, "0%"},
	} {
		if row[col.i] != col.want {
			t.Errorf("skills ls: %s = %s, want %s\n%s", col.name, row[col.i], col.want, out)
		}
	}
	if !strings.Contains(out, "1 skill(s) in the store") {
		t.Errorf("skills ls counts other skills:\n%s", out)
	}
}

// slackWorld is Parley on Slack with its fake workspace and model, able to
// stop and restart over the same database.
type slackWorld struct {
	*instance
	slk   *slacktest.Server
	model *llmtest.Server
}

// startSlackWorld runs Parley on a fresh slacktest workspace (newWorkspace)
// that the test can restart.
func startSlackWorld(t *testing.T) *slackWorld {
	t.Helper()
	slk := newWorkspace(t)
	model := llmtest.NewServer()
	t.Cleanup(model.Close)
	return &slackWorld{slk: slk, model: model,
		instance: startInstance(t, platformConfig(t, filepath.Join(t.TempDir(), "data"), model, slackEnv(slk)))}
}

// botSays waits until the bot's finished answer in the thread rooted at
// root reads text.
func (w *slackWorld) botSays(t *testing.T, ctx context.Context, root, text string) {
	t.Helper()
	err := w.slk.WaitFor(ctx, func() bool {
		for _, m := range w.slk.Thread("C1", root) {
			if m.BotID != "" && m.TS != root && m.Visible() == text && !m.Streaming {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("the bot never answered %q in thread %s: %v; thread %+v", text, root, err, w.slk.Thread("C1", root))
	}
}

// TestLearnFromACorrectionOnSlack: Ana corrects Parley in a thread of a
// workspace channel; `parley reflect`, with Parley stopped, writes the
// skill in the workspace's scope; after a restart Bo, in a new thread of
// the same workspace, gets it in his prompt and the model reads its steps.
func TestLearnFromACorrectionOnSlack(t *testing.T) {
	w := startSlackWorld(t)
	ctx := waitCtx(t)
	scope := "space:slack:" + w.slk.TeamID()
	at := "<@" + w.slk.BotUserID() + "> "

	w.model.Enqueue(llmtest.Text("Deployed to prod."))
	root := w.slk.PostUserMessage("C1", "U1", at+"deploy the app", "")
	w.botSays(t, ctx, root, "Deployed to prod.")
	w.model.Enqueue(llmtest.Text("Sorry, staging first next time."))
	w.slk.PostUserMessage("C1", "U1", correction, root)
	w.botSays(t, ctx, root, "Sorry, staging first next time.")

	w.stop()
	reflectDeploy(t, w.cfg, w.model, scope)
	w.start(t)

	before := len(w.model.Requests())
	w.model.Enqueue(llmtest.ToolCall("c1", "skill_read", `{"name":"Deploy"}`), llmtest.Text("Staging first, then prod."))
	next := w.slk.PostUserMessage("C1", "U2", at+"deploy again", "")
	w.botSays(t, ctx, next, "Staging first, then prod.")
	reqs := w.model.Requests()[before:]
	if len(reqs) != 2 {
		t.Fatalf("%d model calls for Bo's turn, want 2 (skill_read, then the answer)", len(reqs))
	}
	if turn := reqs[0].LastUserText(); !strings.Contains(turn, deployIndex) {
		t.Fatalf("the workspace's skill is not in Bo's prompt:\n%s", turn)
	}
	if body := string(reqs[0].Body); strings.Contains(body, "Deployed to prod.") || strings.Contains(body, correction) {
		t.Fatal("the new thread carried the old thread's conversation: the skill proves nothing")
	}
	if result := reqs[1].LastText("tool"); !strings.Contains(result, deployStep) {
		t.Fatalf("skill_read did not give Bo's turn the steps: %q", result)
	}
}
