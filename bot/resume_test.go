package bot_test

import (
	"context"
	"encoding/json"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/chat"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/bot"
)

// crashed leaves the database as a process that died mid-way would: m is
// accepted in the inbox, and the session holds history.
func crashed(t *testing.T, w *world, m chat.Message, history ...llm.Message) {
	t.Helper()
	payload, _ := json.Marshal(m)
	if ok, err := w.db.Accept(t.Context(), m.Key, m.Thread.Platform, payload); err != nil || !ok {
		t.Fatalf("accept: %v %v", ok, err)
	}
	if len(history) == 0 {
		return
	}
	sid, err := w.db.SessionFor(t.Context(), m.Thread)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.db.AppendMessages(t.Context(), sid, history...); err != nil {
		t.Fatal(err)
	}
}

func TestCrashResume(t *testing.T) {
	m := msg("slack", "C1", "1.1", "U1", "T:C1:1.1", "what is 6×7?")
	m.Mentioned = true
	user := llm.Message{Role: llm.RoleUser, Text: m.Text, Author: "U1", Key: m.Key}
	tests := []struct {
		name       string
		history    []llm.Message
		script     []llmtest.Reply
		wantCalls  int
		wantFinal  string
		wantInHist int // user messages with the key afterwards
	}{
		{"accepted, never started", nil, []llmtest.Reply{llmtest.Text("42")}, 1, "42", 1},
		{"in the session, unanswered", []llm.Message{user}, []llmtest.Reply{llmtest.Text("42")}, 1, "42", 1},
		{"crashed mid-tool", []llm.Message{user, {Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "memory", Arguments: []byte(`{"action":"add","target":"facts","content":"likes arithmetic"}`)}}}},
			[]llmtest.Reply{llmtest.Text("42")}, 1, "42", 1},
		{"answered, not delivered", []llm.Message{user, {Role: llm.RoleAssistant, Text: "42, as computed before the crash"}}, nil, 0, "42, as computed before the crash", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, "slack", bot.Access{})
			crashed(t, w, m, tt.history...)
			w.open(t, "slack") // restart
			w.fake.exitAtOnce = true
			w.srv.Enqueue(tt.script...)
			if err := w.router.Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			if finals := w.replies.final(m.Key); len(finals) != 1 || finals[0] != tt.wantFinal {
				t.Fatalf("finals %q, want exactly [%q]", finals, tt.wantFinal)
			}
			if n := len(w.srv.Requests()); n != tt.wantCalls {
				t.Fatalf("%d model calls, want %d", n, tt.wantCalls)
			}
			sid, _, _ := w.db.BoundSession(t.Context(), m.Thread)
			msgs, _ := w.db.Messages(t.Context(), sid)
			n := 0
			for _, h := range msgs {
				if h.Role == llm.RoleUser && h.Key == m.Key {
					n++
				}
			}
			if n != tt.wantInHist {
				t.Fatalf("the message is in the session %d times, want %d", n, tt.wantInHist)
			}
			if tt.name == "crashed mid-tool" {
				// It may have had its effect before the crash: healed, not re-run.
				if r := msgs[2]; r.ToolCallID != "c1" || r.Text != agent.InterruptedResult {
					t.Fatalf("the interrupted call was not healed on resume: %+v", r)
				}
				if mem, _ := w.db.Memory(t.Context(), "slack:U1"); !mem.Empty() {
					t.Fatal("the interrupted call ran again on resume")
				}
			}
			if left, _ := w.db.Unfinished(t.Context()); len(left) != 0 {
				t.Fatalf("still unfinished: %+v", left)
			}
			// A second restart does nothing more.
			w.open(t, "slack")
			w.fake.exitAtOnce = true
			if err := w.router.Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			if len(w.replies.final(m.Key)) != 0 {
				t.Fatal("answered again after a clean restart")
			}
		})
	}
}

// countingTool needs approval and counts its runs.
type countingTool struct{ runs int }

func (c *countingTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "deploy", Description: "deploy", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (t *countingTool) Name() string { return t.Spec().Name }
func (c *countingTool) Execute(context.Context, agent.Caller, json.RawMessage) (string, error) {
	c.runs++
	return "deployed", nil
}
func (c *countingTool) ApprovalPolicy() agent.Policy     { return agent.PolicyAlways }
func (c *countingTool) Summarize(json.RawMessage) string { return "deploy" }

func TestResumeApprovalAfterRestart(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	deploy := &countingTool{}
	w.runner.Tools = append(w.runner.Tools, deploy)
	m := msg("slack", "C1", "1.1", "U1", "k1", "deploy please")
	sid, _ := w.db.SessionFor(t.Context(), m.Thread)
	w.db.AppendMessages(t.Context(), sid,
		llm.Message{Role: llm.RoleUser, Text: m.Text, Key: m.Key},
		llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "d1", Name: "deploy", Arguments: json.RawMessage(`{}`)}}})
	w.srv.Enqueue(llmtest.Text("Deployed."))
	rec := approvals.Record{ID: "ap1", SessionID: sid, ToolCallID: "d1", Requester: m.User.Key(), RequesterName: m.User.Name,
		Status: approvals.StatusApproved, DecidedBy: m.User.Key(), DecidedByName: "U1"}
	for range 2 { // Recover may repeat a decision: one resume only
		if err := w.router.ResumeApproval(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
		w.router.Wait()
	}
	if deploy.runs != 1 {
		t.Fatalf("tool ran %d times", deploy.runs)
	}
	if finals := w.replies.final("approval:ap1"); len(finals) != 1 || finals[0] != "Deployed." {
		t.Fatalf("finals %q", finals)
	}
}

func TestStopClosesOpenApproval(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	w.approvals = &approvals.Config{}
	w.open(t, "slack") // again, the router now asking approvals
	w.fake.buttons, w.fake.posted = true, make(chan string, 1)
	deploy := &countingTool{}
	w.runner.Tools = append(w.runner.Tools, deploy)
	w.srv.Enqueue(llmtest.ToolCall("d1", "deploy", `{}`))
	m := msg("slack", "C1", "1.1", "U1", "k1", "deploy please")
	m.Mentioned = true
	w.router.HandleMessage(t.Context(), m)
	if asked := <-w.fake.posted; !strings.Contains(asked, "deploy") {
		t.Fatalf("the first message sent is not the approval: %q", asked)
	}
	w.router.HandleCommand(t.Context(), chat.Command{Key: "s1", Thread: m.Thread, User: m.User, Name: "stop"})
	w.router.Wait()
	sid, _, _ := w.db.BoundSession(t.Context(), m.Thread)
	// A late click after /stop does not restart the task.
	late := approvals.Record{ID: "ap1", SessionID: sid, ToolCallID: "d1", Requester: m.User.Key(), Status: approvals.StatusApproved}
	if err := w.router.ResumeApproval(t.Context(), late); err != nil {
		t.Fatal(err)
	}
	w.router.Wait()
	if deploy.runs != 0 {
		t.Fatal("a stopped task's tool ran after a late approval")
	}
	msgs, _ := w.db.Messages(t.Context(), sid)
	if last := msgs[len(msgs)-1]; last.ToolCallID != "d1" || last.Text != agent.InterruptedResult {
		t.Fatalf("open call not closed by /stop: %+v", last)
	}
}

type approverFunc func(context.Context, agent.ApprovalRequest) (agent.Decision, error)

func (f approverFunc) Approve(ctx context.Context, r agent.ApprovalRequest) (agent.Decision, error) {
	return f(ctx, r)
}

// gateTool blocks until released, so a test can act while a tool runs.
type gateTool struct {
	entered chan struct{}
	release chan struct{}
}

func (g *gateTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "build", Description: "build", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (t *gateTool) Name() string { return t.Spec().Name }
func (g *gateTool) Execute(ctx context.Context, _ agent.Caller, _ json.RawMessage) (string, error) {
	close(g.entered)
	<-g.release
	return "built", nil
}

func TestSteerRunningTurn(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	gate := &gateTool{entered: make(chan struct{}), release: make(chan struct{})}
	w.runner.Tools = append(w.runner.Tools, gate)
	w.srv.Enqueue(llmtest.ToolCall("b1", "build", `{}`), llmtest.Text("Built, and skipped the tests as you asked."))
	first := msg("slack", "C1", "1.1", "U1", "k1", "build it")
	first.Mentioned = true
	w.router.HandleMessage(t.Context(), first)
	<-gate.entered
	steer := msg("slack", "C1", "1.1", "U1", "k2", "skip the tests")
	if err := w.router.HandleMessage(t.Context(), steer); err != nil { // same thread, no mention: the bot is part of it
		t.Fatal(err)
	}
	close(gate.release)
	w.router.Wait()
	reqs := w.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "skip the tests") {
		t.Fatalf("the follow-up did not reach the running turn's next model call (%d requests)", len(reqs))
	}
	if got := w.replies.final("k1"); len(got) != 1 || !strings.Contains(got[0], "skipped the tests") {
		t.Fatalf("reply: %q", got)
	}
	if got := w.replies.final("k2"); len(got) != 0 {
		t.Fatalf("the steering message got a reply of its own: %q", got)
	}
	if left, _ := w.db.Unfinished(t.Context()); len(left) != 0 {
		t.Fatalf("unfinished: %+v", left)
	}
}

// TestOnlyTheAuthorSteers: Bob writes in Alice's thread while her turn runs
// a tool. His message is not folded into her turn: her next model call
// does not see it, and it gets a turn of its own with Bob's name and
// memory. Alice's memory is untouched.
func TestOnlyTheAuthorSteers(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	gate := &gateTool{entered: make(chan struct{}), release: make(chan struct{})}
	w.runner.Tools = append(w.runner.Tools, gate)
	remember := func(u, fact string) {
		if err := w.db.EditMemory(t.Context(), "slack:"+u, agent.Facts, func([]string) ([]string, error) { return []string{fact}, nil }); err != nil {
			t.Fatal(err)
		}
	}
	remember("alice", "Alice drinks tea")
	remember("bob", "Bob drinks coffee")
	w.srv.Enqueue(
		llmtest.ToolCall("b1", "build", `{}`), llmtest.Text("Built."), // Alice's turn
		llmtest.ToolCall("m1", "memory", `{"action":"add","target":"facts","content":"prefers vim"}`), llmtest.Text("Noted."), // Bob's
	)
	alice := msg("slack", "C1", "1.1", "alice", "k1", "build it")
	alice.Mentioned = true
	w.router.HandleMessage(t.Context(), alice)
	<-gate.entered
	bob := msg("slack", "C1", "1.1", "bob", "k2", "remember that I prefer vim")
	if err := w.router.HandleMessage(t.Context(), bob); err != nil {
		t.Fatal(err)
	}
	close(gate.release)
	w.router.Wait()

	reqs := w.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls, want 4 (two turns of two calls)", len(reqs))
	}
	if strings.Contains(string(reqs[1].Body), "prefer vim") {
		t.Error("Bob's message was folded into Alice's running turn")
	}
	bobs := string(reqs[2].Body)
	if !strings.Contains(bobs, "Talking with: bob") || !strings.Contains(bobs, "Bob drinks coffee") || strings.Contains(bobs, "Alice drinks tea") {
		t.Errorf("Bob's turn does not run as Bob with Bob's memory: %s", bobs)
	}
	if mem, _ := w.db.Memory(t.Context(), "slack:alice"); len(mem.Facts) != 1 || mem.Facts[0] != "Alice drinks tea" {
		t.Errorf("Alice's memory changed: %+v", mem)
	}
	// Alice's messages are in the thread Bob's turn reads: it is tainted,
	// so its memory write waits for Bob's own confirmation (here no one can
	// be asked) instead of landing anywhere.
	if mem, _ := w.db.Memory(t.Context(), "slack:bob"); len(mem.Facts) != 1 {
		t.Errorf("Bob's memory changed without his confirmation: %+v", mem)
	}
	if got := w.replies.final("k2"); len(got) != 1 || got[0] != "Noted." {
		t.Errorf("Bob's reply: %q", got)
	}
}

// TestStaleMessagesAreNotResumed: after a long outage, recovery does not
// answer into a conversation that has moved on.
func TestStaleMessagesAreNotResumed(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	old := msg("slack", "C1", "1.1", "U1", "old", "what about last week?")
	crashed(t, w, old)
	w.db.Close()
	w.open(t, "slack")
	w.fake.exitAtOnce = true
	later := time.Now().Add(2 * time.Hour) // the outage lasted longer than ResumeWithin
	r := newRouter(t, bot.RouterConfig{
		Sessions: w.db, Inbox: w.db, KV: w.db, Runner: w.runner, Commands: bot.NewSharedCommands(w.db, w.db, agent.MemoryLimits{}),
		Reply: w.replies.factory, Now: func() time.Time { return later }, ResumeWithin: time.Hour,
		Logger: slog.New(slog.DiscardHandler),
	}, w.fake)
	if err := r.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := w.replies.final("old"); len(got) != 0 || len(w.srv.Requests()) != 0 {
		t.Fatalf("a stale message was answered: %q", got)
	}
	if left, _ := w.db.Unfinished(t.Context()); len(left) != 0 {
		t.Fatalf("stale items left open: %+v", left)
	}
}

// TestApprovalResumeSurvivesCrash: the process dies while a turn resumed by
// an approval runs; the restart continues it and the tool runs once.
func TestApprovalResumeSurvivesCrash(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	deploy := &countingTool{}
	w.runner.Tools = append(w.runner.Tools, deploy)
	m := msg("slack", "C1", "1.1", "U1", "k1", "deploy please")
	sid, _ := w.db.SessionFor(t.Context(), m.Thread)
	w.db.AppendMessages(t.Context(), sid,
		llm.Message{Role: llm.RoleUser, Text: m.Text, Key: m.Key},
		llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "d1", Name: "deploy", Arguments: json.RawMessage(`{}`)}}})

	// The tool runs, then the model starts answering and the process dies.
	w.srv.Enqueue(llmtest.Stall("Deploying"))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- w.router.Run(ctx) }()
	rec := approvals.Record{ID: "ap1", SessionID: sid, ToolCallID: "d1", Requester: m.User.Key(), RequesterName: m.User.Name,
		Status: approvals.StatusApproved, DecidedBy: m.User.Key(), DecidedByName: "U1"}
	if err := w.router.ResumeApproval(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	<-w.replies.streaming
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	w.db.Close()
	w.open(t, "slack") // restart
	w.runner.Tools = append(w.runner.Tools, deploy)
	w.fake.exitAtOnce = true
	w.srv.Enqueue(llmtest.Text("Deployed."))
	if err := w.router.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if deploy.runs != 1 {
		t.Fatalf("the approved tool ran %d times", deploy.runs)
	}
	if finals := w.replies.final("approval:ap1"); len(finals) != 1 || finals[0] != "Deployed." {
		t.Fatalf("after restart: %q", finals)
	}
	if left, _ := w.db.Unfinished(t.Context()); len(left) != 0 {
		t.Fatalf("unfinished: %+v", left)
	}
}

// TestHelperApprovalResumesNoTurn: an approval decided for a task's helper
// after the helper stopped waiting resumes nothing in the thread — the
// helper's sub-session is no conversation of its own — and the decision
// stays in its record for the helper to find.
func TestHelperApprovalResumesNoTurn(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	m := msg("slack", "C1", "1.1", "U1", "k1", "deploy please")
	parent, _ := w.db.SessionFor(t.Context(), m.Thread)
	h, err := w.db.AddHelper(t.Context(), task.Helper{Parent: parent, Item: 1, ItemText: "deploy", Instruction: "deploy", Status: task.HelperRunning})
	if err != nil {
		t.Fatal(err)
	}
	w.db.AppendMessages(t.Context(), h.Session,
		llm.Message{Role: llm.RoleUser, Text: "deploy", Key: "h1"},
		llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "d1", Name: "deploy", Arguments: json.RawMessage(`{}`)}}})
	rec := approvals.Record{ID: "ap1", SessionID: h.Session, ToolCallID: "d1", Requester: m.User.Key(), RequesterName: m.User.Name,
		Status: approvals.StatusApproved, DecidedBy: m.User.Key(), DecidedByName: "U1"}
	for _, helpers := range []bot.HelperSessions{w.db, nil} {
		w.router = newRouter(t, bot.RouterConfig{Sessions: w.db, Inbox: w.db, KV: w.db, Runner: w.runner,
			Commands: bot.NewSharedCommands(w.db, w.db, agent.MemoryLimits{}), Reply: w.replies.factory, Logger: slog.New(slog.DiscardHandler),
			Helpers: helpers}, w.fake)
		if err := w.router.ResumeApproval(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
		left, _ := w.db.Unfinished(t.Context())
		if helpers != nil && len(left) != 0 {
			t.Fatalf("a helper's decision queued a turn in the thread: %+v", left)
		}
		if helpers == nil && len(left) != 1 {
			t.Fatalf("without telling helpers apart the decision queues a turn (the bug this guards): %+v", left)
		}
		// The process stops here, before the queued turn has run: the turn
		// waits in the inbox for the next start, and nothing writes to the
		// database after it closes.
		stopped, cancel := context.WithCancel(t.Context())
		cancel()
		if err := w.router.Run(stopped); err != nil {
			t.Fatal(err)
		}
	}
}
