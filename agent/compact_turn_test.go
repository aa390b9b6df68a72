package agent

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// longTurn is an earlier exchange, then a person's request followed by
// steps tool calls, each with a result of size characters.
func longTurn(steps, size int) []llm.Message {
	h := []llm.Message{
		{Role: llm.RoleUser, Text: "earlier question"},
		{Role: llm.RoleAssistant, Text: "earlier answer"},
		{Role: llm.RoleUser, Text: "migrate the service", Author: "ana"},
	}
	for i := range steps {
		id := fmt.Sprintf("c%d", i)
		h = append(h,
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "shell", Arguments: []byte(`{"command":"step"}`)}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, ToolName: "shell", Text: fmt.Sprintf("step %d: ", i) + strings.Repeat("x", size)})
	}
	return h
}

func TestTurnTier(t *testing.T) {
	for _, tc := range []struct {
		name        string
		steps, size int // the turn's steps, each result's characters
		provider    llm.Provider
		wantMethod  string // "" when the tier must not fire
		wantText    string // in the summary
	}{
		{"under the tier", 3, 1500, llmtest.NewInstant(llm.Response{Text: "unused"}), "", ""},
		{"over the tier: summarised", 40, 1500, llmtest.NewInstant(llm.Response{Text: "ran the migration on db-1; config in deploy/app.yaml"}), MethodTurn, "deploy/app.yaml"},
		{"summary call fails: snipped", 40, 1500, downProvider{}, MethodTurnSnip, ""},
		{"summary call fails, short results: extractive", 200, 400, downProvider{}, MethodTurnExtractive, "extractive summary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A window of 20,000 tokens: the budget is 12,000, the tier 10,800.
			r := &Runner{RunnerConfig: RunnerConfig{Provider: tc.provider, ContextWindow: 20000}}
			c, _ := r.compactor()
			h := longTurn(tc.steps, tc.size)
			out, info := c.compactTurn(t.Context(), llm.Request{System: "sys"}, h, false)
			checkPaired(t, out)
			if tc.wantMethod == "" {
				if info != nil || len(out) != len(h) {
					t.Fatalf("the tier fired under it: %+v", info)
				}
				return
			}
			if info == nil || info.Method != tc.wantMethod || info.After >= info.Before {
				t.Fatalf("info %+v, want method %s and a smaller prompt", info, tc.wantMethod)
			}
			// The person's request and what came before it are untouched.
			if out[2].Text != "migrate the service" || out[0].Text != "earlier question" {
				t.Fatalf("the turn's start moved: %q", out[2].Text)
			}
			last := h[len(h)-1]
			if got := out[len(out)-1]; got.Text != last.Text {
				t.Fatalf("the newest result changed: %q", got.Text)
			}
			_, marked := IsSummary(out[3])
			if tc.wantMethod != MethodTurnSnip {
				if !marked || !strings.Contains(out[3].Text, tc.wantText) || out[4].Role != llm.RoleAssistant {
					t.Fatalf("summary message %+v, then %s", out[3], out[4].Role)
				}
				if traffic := r.cal.Scale(EstimateMessages(out[3:])); traffic > c.budget {
					t.Fatalf("the turn still takes %d of %d tokens", traffic, c.budget)
				}
				return
			}
			if marked || len(out) != len(h) || !strings.Contains(out[4].Text, "characters snipped") {
				t.Fatalf("fallback: %d messages (want %d), first result %q", len(out), len(h), out[4].Text)
			}
		})
	}
}

// A second pass folds the first summary into the new one: a turn has one
// summary, right after the message that began it.
func TestTurnTierFoldsItsOwnSummary(t *testing.T) {
	r := &Runner{RunnerConfig: RunnerConfig{Provider: llmtest.NewInstant(
		llm.Response{Text: "first summary"}, llm.Response{Text: "second summary"}), ContextWindow: 20000}}
	c, _ := r.compactor()
	out, _ := c.compactTurn(t.Context(), llm.Request{}, longTurn(40, 1500), false)
	more := longTurn(40, 1500)[3:]
	for i := range more {
		for j := range more[i].ToolCalls {
			more[i].ToolCalls[j].ID += "b"
		}
		if more[i].ToolCallID != "" {
			more[i].ToolCallID += "b"
		}
	}
	out, info := c.compactTurn(t.Context(), llm.Request{}, append(out, more...), false)
	checkPaired(t, out)
	var summaries []string
	for _, m := range out {
		if s, ok := IsSummary(m); ok {
			summaries = append(summaries, s)
		}
	}
	if info == nil || len(summaries) != 1 || summaries[0] != "second summary" || turnStart(out) != 2 {
		t.Fatalf("info %+v, summaries %q, turn starts at %d", info, summaries, turnStart(out))
	}
}

// The history tier never cuts at a turn's summary: the person's message
// that began the turn would be folded away before it.
func TestTailStartSkipsTurnMarks(t *testing.T) {
	a := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "x", Name: "t"}}}
	r := llm.Message{Role: llm.RoleTool, ToolCallID: "x", Text: "r"}
	h := []llm.Message{{Role: llm.RoleUser, Text: "old"}, a, r,
		{Role: llm.RoleUser, Text: "do it"}, {Role: llm.RoleUser, Text: TurnSummaryPrefix + "s"}, a, r, {Role: llm.RoleUser, Text: CheckPrompt}}
	if got := tailStart(h, 0); got != 3 {
		t.Fatalf("tail starts at %d, want the person's message (3)", got)
	}
}
