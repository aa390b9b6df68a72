package openai

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// TestCachedTokens: prompt_tokens_details.cached_tokens reaches Usage.
func TestCachedTokens(t *testing.T) {
	srv := newServer(t, llmtest.Text("one"), llmtest.Text("two"))
	p := New(Config{APIKey: testKey, BaseURL: srv.OpenAIBaseURL()})
	req := llm.Request{Model: "gpt-test", System: strings.Repeat("Be brief. ", 800), CacheKey: "s1",
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
	if first.Usage.CachedTokens != 0 || second.Usage.CachedTokens != 1024 {
		t.Errorf("cached tokens %d then %d, want 0 then 1,024 (the 2,000-token system prompt, in whole blocks of 1,024)",
			first.Usage.CachedTokens, second.Usage.CachedTokens)
	}
	for _, r := range srv.Requests() {
		if len(r.PromptCacheKey()) != 64 {
			t.Errorf("prompt_cache_key = %q, want a 64-character hash", r.PromptCacheKey())
		}
	}
}

// TestReasoningContent: a compatible server's reasoning_content streams
// as thinking and is kept, without a signature, in the response.
func TestReasoningContent(t *testing.T) {
	srv := newServer(t, llmtest.Text("42").WithThinking("Six times ", "seven."))
	p := New(Config{APIKey: testKey, BaseURL: srv.OpenAIBaseURL()})
	events, resp, err := collect(p.Stream(t.Context(), hello))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Event{
		{Kind: llm.EventThinkingDelta, Text: "Six times "}, {Kind: llm.EventThinkingDelta, Text: "seven."}, text("42"),
	}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if !cmp.Equal(resp.Thinking, []llm.Thinking{{Text: "Six times seven."}}) {
		t.Errorf("thinking = %+v", resp.Thinking)
	}
}
