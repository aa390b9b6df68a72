package main

// End to end on Slack: the real adapter and slack-go's socketmode client
// against slacktest, through the whole runtime (router, delivery, SQLite,
// llmtest as the model).

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// newWorkspace is a fresh slacktest workspace with users U1 (ana) and U2
// (bo) and the public channel C1.
func newWorkspace(t *testing.T) *slacktest.Server {
	t.Helper()
	slk := slacktest.NewServer()
	t.Cleanup(slk.Close)
	slk.AddUser("U1", "ana")
	slk.AddUser("U2", "bo")
	slk.AddChannel("C1", "general", slacktest.Public)
	return slk
}

// slackEnv configures Parley for slk.
func slackEnv(slk *slacktest.Server) map[string]string {
	return map[string]string{
		"PARLEY_SLACK_ENABLED":   "true",
		"PARLEY_SLACK_BOT_TOKEN": slk.BotToken(),
		"PARLEY_SLACK_APP_TOKEN": slk.AppToken(),
		"PARLEY_SLACK_API_URL":   slk.URL + "/",
	}
}

// startSlack runs Parley on Slack against a fresh workspace (newWorkspace).
func startSlack(t *testing.T, extra map[string]string, modelOpts ...llmtest.Option) (*slacktest.Server, *llmtest.Server) {
	t.Helper()
	slk := newWorkspace(t)
	model := llmtest.NewServer(modelOpts...)
	t.Cleanup(model.Close)
	env := slackEnv(slk)
	for k, v := range extra {
		env[k] = v
	}
	startInstance(t, platformConfig(t, filepath.Join(t.TempDir(), "data"), model, env))
	return slk, model
}

func TestSlackMentionAnsweredInThread(t *testing.T) {
	slk, model := startSlack(t, nil)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a hang, not a timing assertion
	defer cancel()
	// botReplies returns the bot's messages in the thread rooted at root.
	botReplies := func(root string) []slacktest.Message {
		var out []slacktest.Message
		for _, m := range slk.Thread("C1", root) {
			if m.BotID != "" && m.TS != root {
				out = append(out, m)
			}
		}
		return out
	}
	answered := func(root, text string) func() bool {
		return func() bool {
			for _, m := range botReplies(root) {
				if m.Visible() == text && !m.Streaming {
					return true
				}
			}
			return false
		}
	}

	model.Enqueue(llmtest.Text("Hello ", "from Parley."))
	root := slk.PostUserMessage("C1", "U1", "<@"+slk.BotUserID()+"> hi there", "")
	if err := slk.WaitFor(ctx, answered(root, "Hello from Parley.")); err != nil {
		t.Fatalf("no threaded answer to the mention: %v; thread %+v", err, slk.Thread("C1", root))
	}

	// A follow-up in the thread, without a mention, continues the session.
	model.Enqueue(llmtest.Text("Still here."))
	slk.PostUserMessage("C1", "U1", "and now?", root)
	if err := slk.WaitFor(ctx, answered(root, "Still here.")); err != nil {
		t.Fatalf("no answer to the follow-up: %v; thread %+v", err, slk.Thread("C1", root))
	}
	if n := len(botReplies(root)); n != 2 {
		t.Fatalf("%d bot messages in the thread, want exactly 2: %+v", n, botReplies(root))
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls: the mention (message + app_mention) must be answered once", len(reqs))
	}
}

// TestSlackApprovalButtons: a tool that needs approval posts Block Kit
// buttons in the thread; another user's click is refused ephemerally and
// runs nothing; the requester's click runs the tool and the task goes on.
func TestSlackApprovalButtons(t *testing.T) {
	slk, model := startSlack(t, map[string]string{"PARLEY_TOOLS_SHELL_ENABLED": "true", "PARLEY_TOOLS_APPROVAL_APPROVERS": "slack:U1"})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a hang, not a timing assertion
	defer cancel()

	model.Enqueue(llmtest.ToolCall("c1", "shell", `{"command":"echo slack-approved"}`), llmtest.Text("Ran it."))
	root := slk.PostUserMessage("C1", "U1", "<@"+slk.BotUserID()+"> run the check", "")
	var prompt slacktest.Message
	var buttons []slackButton
	err := slk.WaitFor(ctx, func() bool {
		for _, m := range slk.Thread("C1", root) {
			if b := blockButtons(t, m.Blocks); len(b) == 2 {
				prompt, buttons = m, b
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("no approval message: %v; thread %+v", err, slk.Thread("C1", root))
	}

	slk.Click("C1", prompt.TS, buttons[0].ActionID, buttons[0].Value, "U2") // bo is not the requester
	if err := slk.WaitFor(ctx, func() bool { return len(slk.Ephemerals("U2")) > 0 }); err != nil {
		t.Fatalf("bo was not told anything: %v", err)
	}
	if got := slk.Ephemerals("U2")[0].Text; !strings.Contains(got, "Only an approver can approve this; ana can deny it") {
		t.Fatalf("bo was told %q", got)
	}
	if len(model.Requests()) != 1 {
		t.Fatal("the task went on after a stranger's click")
	}

	slk.Click("C1", prompt.TS, buttons[0].ActionID, buttons[0].Value, "U1")
	done := func() bool {
		for _, m := range slk.Thread("C1", root) {
			if m.BotID != "" && m.Visible() == "Ran it." {
				return true
			}
		}
		return false
	}
	if err := slk.WaitFor(ctx, done); err != nil {
		t.Fatalf("no final answer after approval: %v; thread %+v", err, slk.Thread("C1", root))
	}
	reqs := model.Requests()
	if !strings.Contains(string(reqs[len(reqs)-1].Body), "slack-approved") {
		t.Fatal("the approved command's output did not reach the model")
	}
	for _, m := range slk.Thread("C1", root) {
		if m.TS == prompt.TS && (!strings.Contains(m.Visible(), "Approved by ana") || len(blockButtons(t, m.Blocks)) != 0) {
			t.Fatalf("decided approval message: %q, buttons %v", m.Visible(), blockButtons(t, m.Blocks))
		}
	}
}

type slackButton struct {
	ActionID string `json:"action_id"`
	Value    string `json:"value"`
}

// blockButtons lists the buttons of a Block Kit message.
func blockButtons(t *testing.T, blocks json.RawMessage) []slackButton {
	t.Helper()
	if len(blocks) == 0 {
		return nil
	}
	var bs []struct {
		Type     string `json:"type"`
		Elements []struct {
			Type string `json:"type"`
			slackButton
		} `json:"elements"`
	}
	if err := json.Unmarshal(blocks, &bs); err != nil {
		t.Fatalf("blocks: %v", err)
	}
	var out []slackButton
	for _, b := range bs {
		for _, e := range b.Elements {
			if b.Type == "actions" && e.Type == "button" {
				out = append(out, e.slackButton)
			}
		}
	}
	return out
}

// TestSlackMemoryCommands: /parley memory and !memory in a thread answer
// only the caller, ephemerally, never in the channel.
func TestSlackMemoryCommands(t *testing.T) {
	slk, model := startSlack(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a hang, not a timing assertion
	defer cancel()

	// ana tells Parley something worth keeping.
	model.Enqueue(llmtest.ToolCall("m1", "memory", `{"action":"add","target":"profile","content":"prefers Go"}`),
		llmtest.Text("SAFE"), // the memory judge
		llmtest.Text("Noted."))
	root := slk.PostUserMessage("C1", "U1", "<@"+slk.BotUserID()+"> remember that I prefer Go", "")
	if err := slk.WaitFor(ctx, func() bool {
		for _, m := range slk.Thread("C1", root) {
			if m.BotID != "" && m.Visible() == "Noted." {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no answer: %v", err)
	}

	slk.SlashCommand("/parley", "memory", "U1", "C1")
	if err := slk.WaitFor(ctx, func() bool { return len(slk.Ephemerals("U1")) > 0 }); err != nil {
		t.Fatalf("no ephemeral answer to /parley memory: %v", err)
	}
	if got := slk.Ephemerals("U1")[0].Text; !strings.Contains(got, "prefers Go") {
		t.Fatalf("/parley memory answered %q", got)
	}

	slk.PostUserMessage("C1", "U2", "!memory", root) // bo, in the thread
	if err := slk.WaitFor(ctx, func() bool { return len(slk.Ephemerals("U2")) > 0 }); err != nil {
		t.Fatalf("no ephemeral answer to !memory: %v", err)
	}
	if got := slk.Ephemerals("U2")[0].Text; strings.Contains(got, "prefers Go") {
		t.Fatalf("bo saw ana's memory: %q", got)
	}
	for _, m := range slk.Messages("C1") {
		if strings.Contains(m.Visible(), "prefers Go") && m.BotID != "" {
			t.Fatalf("memory shown in the channel: %q", m.Visible())
		}
	}
}

// TestSlackSocketDropStillAnswersOnce: the websocket drops as a mention
// arrives (before or after its ack); after the reconnect the mention is
// answered exactly once, whether Slack redelivers it or not.
func TestSlackSocketDropStillAnswersOnce(t *testing.T) {
	slk, model := startSlack(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a hang, not a timing assertion
	defer cancel()
	if err := slk.WaitFor(ctx, func() bool { return slk.Connections() >= 1 }); err != nil {
		t.Fatal(err)
	}
	model.Enqueue(llmtest.Text("Answered once."))
	root := slk.PostUserMessage("C1", "U1", "<@"+slk.BotUserID()+"> are you there?", "")
	slk.DropConnection()
	if err := slk.WaitFor(ctx, func() bool { return slk.Connections() >= 2 }); err != nil {
		t.Fatalf("no reconnect: %v", err)
	}
	if err := slk.WaitFor(ctx, func() bool {
		for _, m := range slk.Thread("C1", root) {
			if m.BotID != "" && m.Visible() == "Answered once." {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no answer after the reconnect: %v; thread %+v", err, slk.Thread("C1", root))
	}
	n := 0
	for _, m := range slk.Thread("C1", root) {
		if m.BotID != "" {
			n++
		}
	}
	if n != 1 || len(model.Requests()) != 1 {
		t.Fatalf("%d bot messages and %d model calls, want 1 and 1", n, len(model.Requests()))
	}
}

// TestSlackSocketDropWhileAnswering: the websocket drops while an answer is
// being written; sending does not use the socket, so after the reconnect
// the answer completes, exactly once.
func TestSlackSocketDropWhileAnswering(t *testing.T) {
	release := make(chan struct{})
	asked := make(chan struct{}, 1)
	slk, model := startSlack(t, nil, llmtest.WithResponder(func(llmtest.Request) llmtest.Reply {
		asked <- struct{}{}
		<-release // the model is "thinking" until the test says so
		return llmtest.Text("Finished ", "after the drop.")
	}))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a hang, not a timing assertion
	defer cancel()
	if err := slk.WaitFor(ctx, func() bool { return slk.Connections() >= 1 }); err != nil {
		t.Fatal(err)
	}
	root := slk.PostUserMessage("C1", "U1", "<@"+slk.BotUserID()+"> write something", "")
	<-asked // the answer is being written
	if err := slk.WaitFor(ctx, func() bool { return slk.AssistantStatus("C1", root) != "" }); err != nil {
		t.Fatalf("no status while writing: %v", err)
	}
	slk.DropConnection()
	if err := slk.WaitFor(ctx, func() bool { return slk.Connections() >= 2 }); err != nil {
		t.Fatalf("no reconnect: %v", err)
	}
	close(release)
	if err := slk.WaitFor(ctx, func() bool {
		for _, m := range slk.Thread("C1", root) {
			if m.BotID != "" && m.Visible() == "Finished after the drop." && !m.Streaming {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the answer did not complete: %v; thread %+v", err, slk.Thread("C1", root))
	}
	n := 0
	for _, m := range slk.Thread("C1", root) {
		if m.BotID != "" {
			n++
		}
	}
	if n != 1 || len(model.Requests()) != 1 {
		t.Fatalf("%d bot messages and %d model calls, want 1 and 1", n, len(model.Requests()))
	}
}

// threadAnswered waits until the bot's finished answer in root's thread of
// channel reads answer.
func threadAnswered(t *testing.T, ctx context.Context, slk *slacktest.Server, channel, root, answer string) {
	t.Helper()
	err := slk.WaitFor(ctx, func() bool {
		for _, m := range slk.Thread(channel, root) {
			if m.BotID != "" && m.Visible() == answer && !m.Streaming {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("no answer %q: %v; thread %+v", answer, err, slk.Thread(channel, root))
	}
}

// shownPrivately posts text as user in root's thread of channel and
// returns what only they were shown next.
func shownPrivately(t *testing.T, ctx context.Context, slk *slacktest.Server, channel, user, text, root string) string {
	t.Helper()
	n := len(slk.Ephemerals(user))
	slk.PostUserMessage(channel, user, text, root)
	if err := slk.WaitFor(ctx, func() bool { return len(slk.Ephemerals(user)) > n }); err != nil {
		t.Fatalf("%q by %s: nothing shown to them: %v", text, user, err)
	}
	return slk.Ephemerals(user)[n].Text
}
