package anthropic

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// TestCachedTokens: the second call repeats the first one's prefix and
// reads it from the fake's cache; usage says so in the neutral fields.
func TestCachedTokens(t *testing.T) {
	srv := newServer(t, llmtest.Text("one"), llmtest.Text("two"))
	p := New(Config{APIKey: testKey, BaseURL: srv.AnthropicBaseURL()})
	req := llm.Request{Model: "claude-test", System: strings.Repeat("Be brief. ", 800),
		Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}}
	first, err := llm.Collect(p.Stream(t.Context(), req))
	if err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Text: "one"}, llm.Message{Role: llm.RoleUser, Text: "more"})
	second, err := llm.Collect(p.Stream(t.Context(), req))
	if err != nil {
		t.Fatal(err)
	}
	if u := first.Usage; u.CachedTokens != 0 || u.CacheWriteTokens < llmtest.CacheMinTokens {
		t.Errorf("first call usage %+v, want nothing read and the prefix written", u)
	}
	if u := second.Usage; u.CachedTokens < llmtest.CacheMinTokens || u.CachedTokens > u.InputTokens {
		t.Errorf("second call usage %+v, want the first call's prefix read", u)
	}
	for i, r := range srv.Requests() {
		want := []string{"system[0]", fmt.Sprintf("messages[%d].content[0]", 2*i)}
		if diff := cmp.Diff(want, r.CacheBreakpoints()); diff != "" {
			t.Errorf("call %d breakpoints (-want +got):\n%s", i+1, diff)
		}
	}
}

// TestThinkingRoundTrip: thinking streams as thinking deltas, comes back
// whole with its signature, goes back verbatim to the model that wrote it;
// changed, the fake refuses it as Anthropic does.
func TestThinkingRoundTrip(t *testing.T) {
	srv := newServer(t, llmtest.Text("42").WithThinking("Six times ", "seven."), llmtest.Text("ok"))
	p := New(Config{APIKey: testKey, BaseURL: srv.AnthropicBaseURL()})
	req := hello
	req.Reasoning = llm.Reasoning{Budget: 2048}
	events, resp, err := collect(p.Stream(t.Context(), req))
	if err != nil {
		t.Fatal(err)
	}
	var thought string
	for _, ev := range events {
		if ev.Kind == llm.EventThinkingDelta {
			thought += ev.Text
		}
	}
	want := []llm.Thinking{{Text: "Six times seven.", Signature: llmtest.Signature("claude-test", "Six times seven.")}}
	if thought != "Six times seven." || !cmp.Equal(resp.Thinking, want) || resp.Text != "42" {
		t.Fatalf("thinking %q, response %+v", thought, resp)
	}
	if got := srv.Requests()[0].ThinkingBudget(); got != 2048 {
		t.Errorf("thinking budget sent = %d, want 2048", got)
	}

	answer := llm.Message{Role: llm.RoleAssistant, Text: resp.Text, Thinking: resp.Thinking}
	req.Messages = append(req.Messages, answer, llm.Message{Role: llm.RoleUser, Text: "why?"})
	if _, err := llm.Collect(p.Stream(t.Context(), req)); err != nil {
		t.Fatalf("thinking sent back verbatim: %v", err)
	}
	if got := srv.Requests()[1].ThinkingBlocks(); len(got) != 1 || got[0].Thinking != "Six times seven." || got[0].Signature != want[0].Signature {
		t.Errorf("thinking sent back = %+v", got)
	}

	answer.Thinking = []llm.Thinking{{Text: "Six times eight.", Signature: want[0].Signature}}
	req.Messages[1] = answer
	_, err = llm.Collect(p.Stream(t.Context(), req))
	if e, ok := llm.AsError(err); !ok || e.Kind != llm.KindBadRequest || !strings.Contains(e.Message, "signature") {
		t.Fatalf("changed thinking: error = %v, want the fake's 400 about the signature", err)
	}
}
