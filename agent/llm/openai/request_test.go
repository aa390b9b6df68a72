package openai

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// decodeJSON decodes s as llmtest does, numbers as json.Number.
func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("bad test JSON: %v", err)
	}
	return v
}

// TestRequestBody checks the whole request body the server received:
// system prompt first, tool calls and their results linked by id, tools
// with their schemas verbatim, usage asked for.
func TestRequestBody(t *testing.T) {
	srv := newServer(t, llmtest.Text("ok"))
	p := New(Config{APIKey: testKey, BaseURL: srv.OpenAIBaseURL()})
	req := llm.Request{
		Model:     "gpt-test",
		System:    "You are Parley.",
		MaxTokens: 256,
		Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "Weather in Paris, time in Berlin?"},
			{Role: llm.RoleAssistant, Text: "Checking.", ToolCalls: []llm.ToolCall{
				call("call_a", "get_weather", `{"city":"Paris"}`),
				call("call_b", "get_time", `{"tz":"Europe/Berlin"}`),
			}},
			{Role: llm.RoleTool, ToolCallID: "call_a", ToolName: "get_weather", Text: "18°C"},
			{Role: llm.RoleTool, ToolCallID: "call_b", ToolName: "get_time", Text: "unknown zone", IsError: true},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("call_c", "get_time", `{"tz":"CET"}`)}},
			{Role: llm.RoleTool, ToolCallID: "call_c", ToolName: "get_time", Text: "14:00"},
		},
		Tools: []llm.ToolSpec{
			{Name: "get_weather", Description: "Current weather", Schema: json.RawMessage(
				`{"type":"object","properties":{"city":{"type":"string","maxLength":1e2}},"required":["city"]}`)},
			{Name: "get_time", Schema: json.RawMessage(`{"type":"object","properties":{"tz":{"type":"string"}}}`)},
		},
	}
	if _, err := llm.Collect(p.Stream(t.Context(), req)); err != nil {
		t.Fatalf("Stream: %v", err)
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1", len(reqs))
	}
	want := decodeJSON(t, `{
		"model": "gpt-test",
		"stream": true,
		"stream_options": {"include_usage": true},
		"max_completion_tokens": 256,
		"messages": [
			{"role": "system", "content": "You are Parley."},
			{"role": "user", "content": "Weather in Paris, time in Berlin?"},
			{"role": "assistant", "content": "Checking.", "tool_calls": [
				{"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
				{"id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": "{\"tz\":\"Europe/Berlin\"}"}}
			]},
			{"role": "tool", "tool_call_id": "call_a", "content": "18°C"},
			{"role": "tool", "tool_call_id": "call_b", "content": "unknown zone"},
			{"role": "assistant", "tool_calls": [
				{"id": "call_c", "type": "function", "function": {"name": "get_time", "arguments": "{\"tz\":\"CET\"}"}}
			]},
			{"role": "tool", "tool_call_id": "call_c", "content": "14:00"}
		],
		"tools": [
			{"type": "function", "function": {"name": "get_weather", "description": "Current weather",
				"parameters": {"type":"object","properties":{"city":{"type":"string","maxLength":1e2}},"required":["city"]}}},
			{"type": "function", "function": {"name": "get_time",
				"parameters": {"type":"object","properties":{"tz":{"type":"string"}}}}}
		]
	}`)
	if diff := cmp.Diff(want, any(reqs[0].JSON)); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
}

// TestRequestCacheAndReasoning: the conversation's hashed cache key, the
// reasoning effort with room for the reasoning, the preamble before the
// person's text, the tail after everything, thinking never sent back.
func TestRequestCacheAndReasoning(t *testing.T) {
	srv := newServer(t, llmtest.Text("ok"), llmtest.Text("ok"))
	p := New(Config{APIKey: testKey, BaseURL: srv.OpenAIBaseURL()})
	session := "session-" + strings.Repeat("x", 100) // longer than OpenAI takes
	base := llm.Request{
		Model: "o4-mini", MaxTokens: 100, CacheKey: session, Reasoning: llm.Reasoning{Budget: 2048, Effort: "low"},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Preamble: "[Sent Monday 14:03]", Text: "hi"},
			{Role: llm.RoleAssistant, Text: "hello", Thinking: []llm.Thinking{{Text: "greet back"}}},
			{Role: llm.RoleUser, Text: "plan?"},
		},
		Tail: "Your plan: 1. answer",
	}
	afterTool := base
	afterTool.Reasoning = llm.Reasoning{}
	afterTool.Messages = []llm.Message{
		{Role: llm.RoleUser, Text: "hi"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c1", "now", `{}`)}},
		{Role: llm.RoleTool, ToolCallID: "c1", Text: "14:03"},
	}
	for _, req := range []llm.Request{base, afterTool} {
		if _, err := llm.Collect(p.Stream(t.Context(), req)); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	key := reqs[0].JSON["prompt_cache_key"].(string)
	if len(key) != 64 || strings.Contains(key, "session") || reqs[1].JSON["prompt_cache_key"] != key {
		t.Errorf("prompt_cache_key = %q, want the same 64-character hash on both calls", key)
	}
	want := decodeJSON(t, `{
		"model": "o4-mini", "stream": true, "stream_options": {"include_usage": true},
		"max_completion_tokens": 2148, "reasoning_effort": "low",
		"messages": [
			{"role": "user", "content": "[Sent Monday 14:03]\n\nhi"},
			{"role": "assistant", "content": "hello"},
			{"role": "user", "content": "plan?\n\nYour plan: 1. answer"}
		]
	}`).(map[string]any)
	want["prompt_cache_key"] = key
	if diff := cmp.Diff(any(want), any(reqs[0].JSON)); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
	msgs := reqs[1].JSON["messages"].([]any)
	if last := msgs[len(msgs)-1].(map[string]any); last["role"] != "user" || last["content"] != "Your plan: 1. answer" {
		t.Errorf("tail after tool results = %v, want a user message of its own", last)
	}
	if _, ok := reqs[1].JSON["reasoning_effort"]; ok {
		t.Errorf("reasoning_effort sent without reasoning")
	}
}

// TestExplicitConfigOnly sets every OPENAI_* variable the SDK would read to
// bogus values: none may reach the request.
func TestExplicitConfigOnly(t *testing.T) {
	for k, v := range map[string]string{
		"OPENAI_API_KEY":        "sk-from-env",
		"OPENAI_BASE_URL":       "http://env.invalid/v1",
		"OPENAI_ORG_ID":         "org-from-env",
		"OPENAI_PROJECT_ID":     "proj-from-env",
		"OPENAI_ADMIN_KEY":      "admin-from-env",
		"OPENAI_CUSTOM_HEADERS": "X-From-Env: leaked",
	} {
		t.Setenv(k, v)
	}
	srv := newServer(t, llmtest.Text("ok"))
	p := New(Config{APIKey: testKey, BaseURL: srv.OpenAIBaseURL()})

	if _, err := llm.Collect(p.Stream(t.Context(), hello)); err != nil {
		t.Fatalf("Stream: %v", err) // a wrong key or base URL fails here
	}
	if err := p.Check(t.Context()); err != nil {
		t.Fatalf("Check: %v", err)
	}
	for _, r := range srv.Requests() {
		if got, want := r.Header.Get("Authorization"), "Bearer "+testKey; got != want {
			t.Errorf("%s: Authorization = %q, want %q", r.Path, got, want)
		}
		for _, h := range []string{"OpenAI-Organization", "OpenAI-Project", "X-From-Env"} {
			if v := r.Header.Get(h); v != "" {
				t.Errorf("%s: header %s = %q leaked from the environment", r.Path, h, v)
			}
		}
	}
}

func TestNoKeyNoAuthorization(t *testing.T) {
	srv := llmtest.NewServer() // a local server that needs no key
	t.Cleanup(srv.Close)
	srv.Enqueue(llmtest.Text("ok"))
	p := New(Config{BaseURL: srv.OpenAIBaseURL()})
	if _, err := llm.Collect(p.Stream(t.Context(), hello)); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "" {
		t.Errorf("Authorization = %q, want none", got)
	}
}

func TestInvalidRequest(t *testing.T) {
	tests := []struct {
		name string
		req  llm.Request
	}{
		{"schema not JSON", llm.Request{Model: "m", Tools: []llm.ToolSpec{{Name: "f", Schema: json.RawMessage(`{"type":`)}}}},
		{"schema not an object", llm.Request{Model: "m", Tools: []llm.ToolSpec{{Name: "f", Schema: json.RawMessage(`[1]`)}}}},
		{"schema null", llm.Request{Model: "m", Tools: []llm.ToolSpec{{Name: "f", Schema: json.RawMessage(`null`)}}}},
		{"unknown role", llm.Request{Model: "m", Messages: []llm.Message{{Role: "system", Text: "x"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			p := New(Config{APIKey: testKey, BaseURL: srv.OpenAIBaseURL()})
			_, err := llm.Collect(p.Stream(t.Context(), tc.req))
			if e, ok := llm.AsError(err); !ok || e.Kind != llm.KindBadRequest {
				t.Fatalf("error = %v, want *llm.Error KindBadRequest", err)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d requests sent for an invalid request, want 0", n)
			}
		})
	}
}
