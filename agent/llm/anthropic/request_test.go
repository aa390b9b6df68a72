package anthropic

import (
	"bytes"
	"encoding/json"
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

// sig1 is the fake's signature of a thinking block claude-test wrote.
var sig1 = llmtest.Signature("claude-test", "use the tool")

// TestRequestBody checks the whole request body the server received.
func TestRequestBody(t *testing.T) {
	tests := []struct {
		name string
		req  llm.Request
		want string
	}{
		{
			// System prompt apart, tools with their schemas verbatim, and
			// the two results of one turn merged into one user message.
			name: "conversation with tools",
			req: llm.Request{
				Model:     "claude-test",
				System:    "You are Parley.",
				MaxTokens: 256,
				Messages: []llm.Message{
					{Role: llm.RoleUser, Text: "Weather in Paris, time in Berlin?"},
					{Role: llm.RoleAssistant, Text: "Checking.", ToolCalls: []llm.ToolCall{
						call("call_a", "get_weather", `{"city":"Paris"}`),
						call("call_b", "get_time", `{"tz":`), // cut off by the model
					}},
					{Role: llm.RoleTool, ToolCallID: "call_a", ToolName: "get_weather", Text: "18°C"},
					{Role: llm.RoleTool, ToolCallID: "call_b", ToolName: "get_time", Text: "invalid arguments", IsError: true},
					{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("call_c", "get_time", `{"tz":"CET"}`)}},
					{Role: llm.RoleTool, ToolCallID: "call_c", ToolName: "get_time"},
					{Role: llm.RoleUser, Text: "Thanks!"},
				},
				Tools: []llm.ToolSpec{
					{Name: "get_weather", Description: "Current weather", Schema: json.RawMessage(
						`{"type":"object","properties":{"city":{"type":"string","maxLength":1e2}},"required":["city"]}`)},
					{Name: "get_time", Schema: json.RawMessage(`{"type":"object","properties":{"tz":{"type":"string"}}}`)},
				},
			},
			want: `{
				"model": "claude-test",
				"max_tokens": 256,
				"stream": true,
				"system": [{"type": "text", "text": "You are Parley.", "cache_control": {"type": "ephemeral"}}],
				"messages": [
					{"role": "user", "content": [{"type": "text", "text": "Weather in Paris, time in Berlin?"}]},
					{"role": "assistant", "content": [
						{"type": "text", "text": "Checking."},
						{"type": "tool_use", "id": "call_a", "name": "get_weather", "input": {"city": "Paris"}},
						{"type": "tool_use", "id": "call_b", "name": "get_time", "input": {}}
					]},
					{"role": "user", "content": [
						{"type": "tool_result", "tool_use_id": "call_a", "is_error": false, "content": [{"type": "text", "text": "18°C"}]},
						{"type": "tool_result", "tool_use_id": "call_b", "is_error": true, "content": [{"type": "text", "text": "invalid arguments"}]}
					]},
					{"role": "assistant", "content": [
						{"type": "tool_use", "id": "call_c", "name": "get_time", "input": {"tz": "CET"}}
					]},
					{"role": "user", "content": [
						{"type": "tool_result", "tool_use_id": "call_c", "is_error": false}
					]},
					{"role": "user", "content": [{"type": "text", "text": "Thanks!", "cache_control": {"type": "ephemeral"}}]}
				],
				"tools": [
					{"name": "get_weather", "description": "Current weather",
						"input_schema": {"type":"object","properties":{"city":{"type":"string","maxLength":1e2}},"required":["city"]}},
					{"name": "get_time", "input_schema": {"type":"object","properties":{"tz":{"type":"string"}}}}
				]
			}`,
		},
		{
			name: "max_tokens defaults to 4096",
			req:  llm.Request{Model: "claude-test", Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}},
			want: `{
				"model": "claude-test",
				"max_tokens": 4096,
				"stream": true,
				"messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]
			}`,
		},
		{
			// The preamble before the person's text; the answer's thinking
			// back first and verbatim; the tail after the cache breakpoint;
			// max_tokens holds the thinking budget and the answer.
			name: "thinking, preamble and tail",
			req: llm.Request{
				Model: "claude-test", System: "S", MaxTokens: 256, Reasoning: llm.Reasoning{Budget: 2048, Effort: "low"},
				Messages: []llm.Message{
					{Role: llm.RoleUser, Preamble: "[Sent Monday 14:03]", Text: "weather?"},
					{Role: llm.RoleAssistant, Thinking: []llm.Thinking{{Text: "use the tool", Signature: sig1}, {Redacted: "enc"}},
						ToolCalls: []llm.ToolCall{call("t1", "get_weather", `{}`)}},
					{Role: llm.RoleTool, ToolCallID: "t1", Text: "18°C"},
				},
				Tail: "Your plan: 1. answer",
			},
			want: `{
				"model": "claude-test", "max_tokens": 2304, "stream": true,
				"thinking": {"type": "enabled", "budget_tokens": 2048},
				"system": [{"type": "text", "text": "S", "cache_control": {"type": "ephemeral"}}],
				"messages": [
					{"role": "user", "content": [{"type": "text", "text": "[Sent Monday 14:03]\n\nweather?"}]},
					{"role": "assistant", "content": [
						{"type": "thinking", "thinking": "use the tool", "signature": "` + sig1 + `"},
						{"type": "redacted_thinking", "data": "enc"},
						{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {}}
					]},
					{"role": "user", "content": [
						{"type": "tool_result", "tool_use_id": "t1", "is_error": false, "content": [{"type": "text", "text": "18°C"}],
							"cache_control": {"type": "ephemeral"}},
						{"type": "text", "text": "Your plan: 1. answer"}
					]}
				]
			}`,
		},
		{
			// The API refuses thinking in a tool loop whose assistant
			// message began without it (another model wrote it).
			name: "no thinking to continue a tool loop begun without",
			req: llm.Request{
				Model: "claude-test", MaxTokens: 256, Reasoning: llm.Reasoning{Budget: 2048},
				Messages: []llm.Message{
					{Role: llm.RoleUser, Text: "weather?"},
					{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("t1", "get_weather", `{}`)}},
					{Role: llm.RoleTool, ToolCallID: "t1"},
				},
			},
			want: `{
				"model": "claude-test", "max_tokens": 256, "stream": true,
				"messages": [
					{"role": "user", "content": [{"type": "text", "text": "weather?"}]},
					{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {}}]},
					{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": false, "cache_control": {"type": "ephemeral"}}]}
				]
			}`,
		},
		{
			// Another server's answer: its reasoning (no signature) is not
			// sent, its id is mapped to one the API takes in the call and
			// its result alike, and a picture after the results does not
			// end the tool loop it continues.
			name: "another server's answer, a picture after its results",
			req: llm.Request{
				Model: "claude-test", MaxTokens: 256, Reasoning: llm.Reasoning{Budget: 2048},
				Messages: []llm.Message{
					{Role: llm.RoleUser, Text: "weather?"},
					{Role: llm.RoleAssistant, Thinking: []llm.Thinking{{Text: "call it"}},
						ToolCalls: []llm.ToolCall{call("functions.f:0", "f", `{}`)}},
					{Role: llm.RoleTool, ToolCallID: "functions.f:0", Text: "a chart"},
					{Role: llm.RoleUser, Images: []llm.Image{{MIME: "image/png", Data: []byte("png")}}},
				},
			},
			want: `{
				"model": "claude-test", "max_tokens": 256, "stream": true,
				"messages": [
					{"role": "user", "content": [{"type": "text", "text": "weather?"}]},
					{"role": "assistant", "content": [{"type": "tool_use", "id": "call_e7d109d5341cb6663dba01fa", "name": "f", "input": {}}]},
					{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_e7d109d5341cb6663dba01fa", "is_error": false,
						"content": [{"type": "text", "text": "a chart"}]}]},
					{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "cG5n"},
						"cache_control": {"type": "ephemeral"}}]}
				]
			}`,
		},
		{
			name: "without a system prompt the last tool is the breakpoint; a tail after an answer",
			req: llm.Request{
				Model: "claude-test", MaxTokens: 10,
				Messages: []llm.Message{{Role: llm.RoleUser, Text: "a"}, {Role: llm.RoleAssistant, Text: "b"}},
				Tools:    []llm.ToolSpec{{Name: "f"}, {Name: "g"}},
				Tail:     "t",
			},
			want: `{
				"model": "claude-test", "max_tokens": 10, "stream": true,
				"messages": [
					{"role": "user", "content": [{"type": "text", "text": "a"}]},
					{"role": "assistant", "content": [{"type": "text", "text": "b", "cache_control": {"type": "ephemeral"}}]},
					{"role": "user", "content": [{"type": "text", "text": "t"}]}
				],
				"tools": [
					{"name": "f", "input_schema": {"type":"object","properties":{}}},
					{"name": "g", "input_schema": {"type":"object","properties":{}}, "cache_control": {"type": "ephemeral"}}
				]
			}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, llmtest.Text("ok"))
			p := New(Config{APIKey: testKey, BaseURL: srv.AnthropicBaseURL()})
			if _, err := llm.Collect(p.Stream(t.Context(), tc.req)); err != nil {
				t.Fatalf("Stream: %v", err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("server got %d requests, want 1", len(reqs))
			}
			if diff := cmp.Diff(decodeJSON(t, tc.want), any(reqs[0].JSON)); diff != "" {
				t.Errorf("request body (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExplicitConfigOnly sets the ANTHROPIC_* variables the SDK would read
// to bogus values: none may reach the request.
func TestExplicitConfigOnly(t *testing.T) {
	for k, v := range map[string]string{
		"ANTHROPIC_API_KEY":        "sk-ant-from-env",
		"ANTHROPIC_AUTH_TOKEN":     "token-from-env",
		"ANTHROPIC_BASE_URL":       "http://env.invalid",
		"ANTHROPIC_CUSTOM_HEADERS": "X-From-Env: leaked",
		"ANTHROPIC_PROFILE":        "does-not-exist",
		"ANTHROPIC_CONFIG_DIR":     t.TempDir(),
	} {
		t.Setenv(k, v)
	}
	srv := newServer(t, llmtest.Text("ok"))
	p := New(Config{APIKey: testKey, BaseURL: srv.AnthropicBaseURL()})

	if _, err := llm.Collect(p.Stream(t.Context(), hello)); err != nil {
		t.Fatalf("Stream: %v", err) // a wrong key, base URL or profile fails here
	}
	if err := p.Check(t.Context()); err != nil {
		t.Fatalf("Check: %v", err)
	}
	for _, r := range srv.Requests() {
		// anthropic-sdk-go v2 sends WithAPIKey as a bearer token.
		if got, want := r.Header.Get("Authorization"), "Bearer "+testKey; got != want {
			t.Errorf("%s: Authorization = %q, want %q", r.Path, got, want)
		}
		if got := r.Header.Get("X-Api-Key"); got != "" && got != testKey {
			t.Errorf("%s: X-Api-Key = %q, want %q or none", r.Path, got, testKey)
		}
		if v := r.Header.Get("X-From-Env"); v != "" {
			t.Errorf("%s: header X-From-Env = %q leaked from the environment", r.Path, v)
		}
		if r.Header.Get("Anthropic-Version") == "" {
			t.Errorf("%s: no anthropic-version header", r.Path)
		}
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
			p := New(Config{APIKey: testKey, BaseURL: srv.AnthropicBaseURL()})
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
