package webconsole_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/chat"
)

// TestTranscriptShowsTurns: a transcript shows each tool call with the
// approval it needed and who decided it, a message that steered a
// running turn as such, and what each turn's model calls cost — the
// first turn's two calls on its answer, the second's one on its own.
func TestTranscriptShowsTurns(t *testing.T) {
	c := newConsoleOn(t, true, nil)
	ctx := t.Context()
	step := func() { c.clock.add(time.Second) }
	sid, err := c.db.SessionFor(ctx, chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1.1"})
	if err != nil {
		t.Fatal(err)
	}
	cost := func(nanos int64, priced bool) {
		t.Helper()
		step()
		if err := c.db.RecordCost(ctx, bot.Cost{At: c.clock.now(), User: "slack:UANA", Agent: "main", Place: "slack:channel:C1", Session: sid,
			Model: "m", Usage: llm.Usage{InputTokens: 100, OutputTokens: 10}, Nanos: nanos, Priced: priced}); err != nil {
			t.Fatal(err)
		}
	}
	add := func(m llm.Message) {
		t.Helper()
		step()
		if err := c.db.AppendMessages(ctx, sid, m); err != nil {
			t.Fatal(err)
		}
	}
	add(llm.Message{Role: llm.RoleUser, Author: "Ana", Text: "clean up /tmp"})
	cost(1_000_000, true)
	add(llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call-1", Name: "shell", Arguments: []byte(`{"command":"rm -rf /tmp/old"}`)}}})
	rec := approvals.Record{ID: "apr1", SessionID: sid, ToolCallID: "call-1", ToolName: "shell", Summary: "removes /tmp/old",
		Requester: "slack:UANA", RequesterName: "Ana", Approvers: []string{admin}, Status: approvals.StatusPending,
		CreatedAt: c.clock.now(), ExpiresAt: c.clock.now().Add(time.Hour)}
	if _, _, err := c.db.CreateApproval(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := c.db.DecideApproval(ctx, "apr1", approvals.StatusApproved, chat.User{Platform: "slack", ID: "UADM", Name: "Root"}, c.clock.now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	add(llm.Message{Role: llm.RoleTool, ToolCallID: "call-1", ToolName: "shell", Text: "removed"})
	add(llm.Message{Role: llm.RoleUser, Author: "Ana", Text: "and /var/tmp too"}) // while the turn ran
	cost(2_000_000, true)
	add(llm.Message{Role: llm.RoleAssistant, Text: "Done, both."})
	add(llm.Message{Role: llm.RoleUser, Author: "Ana", Text: "thanks"})
	cost(0, false)
	add(llm.Message{Role: llm.RoleAssistant, Text: "You're welcome."})

	code, body := c.get(t, c.signIn(t, admin), "/conversations/"+sid)
	if code != http.StatusOK {
		t.Fatalf("GET the transcript: %d\n%s", code, body)
	}
	for _, want := range []string{
		"approved by Root (slack:UADM)",
		"asked by Ana: removes /tmp/old",
		"steered the running turn",
		"This turn: 2 model calls, 200 tokens in, 20 out, $0.0030",
		"This turn: 1 model call, 100 tokens in, 10 out, $0 (1 without a known price)",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the transcript lacks %q", want)
		}
	}
	if n := strings.Count(body, "steered the running turn"); n != 1 {
		t.Errorf("%d messages marked as steering, want 1", n)
	}
	// Each turn's cost is on its last message: after "Done, both." and
	// after "You're welcome.", not on the tool call's.
	if i, j := strings.Index(body, "Done, both."), strings.Index(body, "This turn: 2"); i < 0 || j < i {
		t.Errorf("the first turn's cost is not on its answer")
	}
}
