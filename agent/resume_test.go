package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// seed writes a transcript into a session, as if earlier turns had run.
func (h *harness) seed(t *testing.T, sid string, msgs ...llm.Message) {
	t.Helper()
	if err := h.db.AppendMessages(t.Context(), sid, msgs...); err != nil {
		t.Fatal(err)
	}
}

func longHistory(exchanges int) []llm.Message {
	var msgs []llm.Message
	for i := range exchanges {
		msgs = append(msgs,
			llm.Message{Role: llm.RoleUser, Text: strings.Repeat("Tell me about the deploy pipeline. ", 20), Author: "ana"},
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "f" + string(rune('a'+i)), Name: "memory", Arguments: json.RawMessage(`{}`)}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: "f" + string(rune('a'+i)), ToolName: "memory", Text: "ok"},
			llm.Message{Role: llm.RoleAssistant, Text: strings.Repeat("The pipeline has two stages. ", 20)},
		)
	}
	return msgs
}

func TestCompactionAtWatermark(t *testing.T) {
	h := newHarness(t)
	h.runner.ContextWindow = 4000 // budget 2400 tokens; the seeded history is ~5000
	sid := h.session(t, "ana")
	h.seed(t, sid, longHistory(12)...)
	h.srv.Enqueue(llmtest.Text("Ana asked about the deploy pipeline; it has two stages."), llmtest.Text("Two stages."))
	evs, err := collect(t.Context(), h.runner, turn(sid, "ana", "remind me?"))
	if err != nil {
		t.Fatal(err)
	}
	i := indexKind(evs, agent.EventCompaction)
	if i < 0 {
		t.Fatalf("no compaction: %v", kinds(evs))
	}
	info := evs[i].Compaction
	if info.Method != "model" || info.After >= info.Before || info.After > 2400 {
		t.Fatalf("compaction %+v", info)
	}
	msgs, _ := h.db.Messages(t.Context(), sid)
	if !strings.HasPrefix(msgs[0].Text, agent.SummaryPrefix+"Ana asked about") || msgs[2].Role != llm.RoleUser {
		t.Fatalf("stored transcript does not start with the summary and a user message: %+v", msgs[:3])
	}
	if last := msgs[len(msgs)-1]; last.Text != "Two stages." {
		t.Fatalf("last stored message %+v", last)
	}
	reqs := h.srv.Requests()
	if !strings.Contains(string(reqs[0].Body), "compact a conversation") || !strings.Contains(string(reqs[1].Body), "Ana asked about") {
		t.Fatal("the summary call or the summarized request is missing")
	}
}

func TestOverflowCompactsAndRetriesOnce(t *testing.T) {
	h := newHarness(t)
	h.runner.ContextWindow = 1_000_000 // the watermark never fires: only the provider's overflow does
	sid := h.session(t, "ana")
	h.seed(t, sid, longHistory(6)...)
	h.srv.Enqueue(llmtest.ContextOverflow(), llmtest.Text("summary of the pipeline talk"), llmtest.Text("answer"))
	evs, err := collect(t.Context(), h.runner, turn(sid, "ana", "and now?"))
	if err != nil {
		t.Fatal(err)
	}
	if indexKind(evs, agent.EventCompaction) < 0 || evs[len(evs)-1].Text != "answer" {
		t.Fatalf("events %v", kinds(evs))
	}

	// A second overflow after compacting is a clear error, not a loop.
	h.srv.Enqueue(llmtest.ContextOverflow(), llmtest.Text("another summary"), llmtest.ContextOverflow())
	_, err = h.runner.RunSync(t.Context(), turn(sid, "ana", "more"))
	if le, ok := llm.AsError(err); !ok || le.Kind != llm.KindContextOverflow {
		t.Fatalf("err = %v, want context overflow", err)
	}
}

func TestSnipOldToolOutputs(t *testing.T) {
	big := &testTool{name: "big", run: func(json.RawMessage) (string, error) { return strings.Repeat("log line\n", 1500), nil }}
	h := newHarness(t, big)
	h.runner.ContextWindow = 8000
	sid := h.session(t, "ana")
	h.srv.Enqueue(llmtest.ToolCall("b1", "big", `{}`), llmtest.ToolCall("b2", "big", `{}`), llmtest.Text("done"))
	evs, err := collect(t.Context(), h.runner, turn(sid, "ana", "dump the logs twice"))
	if err != nil {
		t.Fatal(err)
	}
	i := indexKind(evs, agent.EventCompaction)
	if i < 0 || evs[i].Compaction.Method != "snip" {
		t.Fatalf("want a snip compaction: %v", kinds(evs))
	}
	msgs, _ := h.db.Messages(t.Context(), sid)
	if !strings.Contains(msgs[2].Text, "characters snipped") || len(msgs[2].Text) > 2000 {
		t.Fatalf("old tool output not snipped: %d chars", len(msgs[2].Text))
	}
	for _, r := range h.srv.Requests() {
		if strings.Contains(string(r.Body), "compact a conversation") {
			t.Fatal("snipping was enough, but the model was asked to summarize")
		}
	}
}

// TestResumeApprovedCall: after a restart, a decided approval lets the
// stored, not-yet-run call run, and the task continues.
func TestResumeApprovedCall(t *testing.T) {
	for _, tt := range []struct {
		name     string
		decision agent.Decision
		wantRun  bool
		result   string
	}{
		{"approved", agent.Decision{Approved: true, By: "ana"}, true, "ran"},
		{"denied", agent.Decision{By: "bo"}, false, "denied by bo"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			risky := &testTool{name: "risky", policy: agent.PolicyAlways, run: func(json.RawMessage) (string, error) { return "ran", nil }}
			h := newHarness(t, risky)
			sid := h.session(t, "ana")
			h.seed(t, sid,
				llm.Message{Role: llm.RoleUser, Text: "clean up", Author: "ana"},
				llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
					{ID: "m1", Name: "memory", Arguments: json.RawMessage(`{"action":"add","target":"facts","content":"cleanup requested"}`)},
					{ID: "r1", Name: "risky", Arguments: json.RawMessage(`{}`)},
				}},
				llm.Message{Role: llm.RoleTool, ToolCallID: "m1", ToolName: "memory", Text: "done"},
			)
			h.srv.Enqueue(llmtest.Text("Cleaned up."))
			rt := turn(sid, "ana", "")
			rt.Resume, rt.Decisions = true, map[string]agent.Decision{"r1": tt.decision}
			res, err := h.runner.RunSync(t.Context(), rt)
			if err != nil {
				t.Fatal(err)
			}
			if (risky.calls == 1) != tt.wantRun || res.Text != "Cleaned up." {
				t.Fatalf("calls %d, text %q", risky.calls, res.Text)
			}
			msgs, _ := h.db.Messages(t.Context(), sid)
			if len(msgs) != 5 || msgs[3].ToolCallID != "r1" || !strings.Contains(msgs[3].Text, tt.result) {
				t.Fatalf("transcript %+v", msgs)
			}
			// The request carried both results and no new user message.
			body := string(h.srv.Requests()[0].Body)
			if strings.Count(body, `"role":"tool"`) != 2 || strings.Count(body, `"role":"user"`) != 1 {
				t.Fatalf("resumed request: %s", body)
			}
		})
	}
}

func indexKind(evs []agent.Event, k agent.EventKind) int {
	for i, e := range evs {
		if e.Kind == k {
			return i
		}
	}
	return -1
}

// blockingApprover waits until the run is cancelled, as a chat approval
// does when the process shuts down before anyone clicks.
type blockingApprover struct{ asked chan struct{} }

func (b blockingApprover) Approve(ctx context.Context, _ agent.ApprovalRequest) (agent.Decision, error) {
	close(b.asked)
	<-ctx.Done()
	return agent.Decision{}, ctx.Err()
}

func TestApprovalSurvivesShutdown(t *testing.T) {
	risky := &testTool{name: "risky", policy: agent.PolicyAlways, run: func(json.RawMessage) (string, error) { return "ran", nil }}
	h := newHarness(t, risky)
	sid := h.session(t, "ana")
	asked := make(chan struct{})
	h.srv.Enqueue(llmtest.ToolCall("r1", "risky", `{}`))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	tn := turn(sid, "ana", "do it")
	tn.Caller.Approve = blockingApprover{asked: asked}
	go func() { _, err := h.runner.RunSync(ctx, tn); done <- err }()
	<-asked
	cancel() // shutdown while the approval message waits for a click
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	msgs, _ := h.db.Messages(t.Context(), sid)
	if last := msgs[len(msgs)-1]; last.Role != llm.RoleAssistant || len(last.ToolCalls) != 1 {
		t.Fatalf("the open call must have no result yet: %+v", msgs)
	}
	// After the restart someone approves: the call runs, the task goes on.
	h.srv.Enqueue(llmtest.Text("Done."))
	rt := turn(sid, "ana", "")
	rt.Resume, rt.Decisions = true, map[string]agent.Decision{"r1": {Approved: true, By: "ana"}}
	if res, err := h.runner.RunSync(t.Context(), rt); err != nil || res.Text != "Done." || risky.calls != 1 {
		t.Fatalf("resume: %v %q calls=%d", err, res.Text, risky.calls)
	}
}
