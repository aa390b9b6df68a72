package llmtest

import (
	"net/http"
	"strings"
	"testing"
)

// TestRefusesBrokenConversations: each endpoint refuses, with a 400 and
// the provider's words, what the real API refuses of a conversation, and
// takes a well-formed one.
func TestRefusesBrokenConversations(t *testing.T) {
	const (
		an = "/v1/messages"
		oa = "/v1/chat/completions"
	)
	use := func(id string) string {
		return `{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"f","input":{}}]}`
	}
	res := func(ids ...string) string {
		var b []string
		for _, id := range ids {
			b = append(b, `{"type":"tool_result","tool_use_id":"`+id+`","content":"ok"}`)
		}
		return `{"role":"user","content":[` + strings.Join(b, ",") + `]}`
	}
	call := func(ids ...string) string {
		var c []string
		for _, id := range ids {
			c = append(c, `{"id":"`+id+`","type":"function","function":{"name":"f","arguments":"{}"}}`)
		}
		return `{"role":"assistant","content":null,"tool_calls":[` + strings.Join(c, ",") + `]}`
	}
	tool := func(id string) string { return `{"role":"tool","tool_call_id":"` + id + `","content":"ok"}` }
	const user = `{"role":"user","content":"hi"}`
	mark := `{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}`
	tests := []struct {
		name, path string
		msgs       []string
		extra      string // more top-level fields
		want       string // "" takes the request
	}{
		{"anthropic: a paired call", an, []string{user, use("toolu_1"), res("toolu_1")}, "", ""},
		{"anthropic: a dotted id", an, []string{user, use("functions.f:0"), res("functions.f:0")}, "", "String should match pattern"},
		{"anthropic: an empty id", an, []string{user, use(""), res("")}, "", "String should match pattern"},
		{"anthropic: an id twice", an, []string{user, use("a"), res("a"), user, use("a"), res("a")}, "", "`tool_use` ids must be unique"},
		{"anthropic: no result", an, []string{user, use("a"), user}, "", "messages.1: `tool_use` ids were found without `tool_result`"},
		{"anthropic: a result for no call", an, []string{user, use("a"), res("a", "b")}, "", "unexpected `tool_use_id` found in `tool_result` blocks: b"},
		{"anthropic: text before a result", an, []string{user, use("a"),
			`{"role":"user","content":[{"type":"text","text":"x"},{"type":"tool_result","tool_use_id":"a"}]}`}, "", "must come first"},
		{"anthropic: five cache marks", an, []string{`{"role":"user","content":[` + strings.Repeat(mark+",", 4) + mark + `]}`}, "",
			"A maximum of 4 blocks with cache_control may be provided. Found 5."},
		{"anthropic: thinking lost before pictures", an, []string{user, use("a"), res("a"), user},
			`,"thinking":{"type":"enabled","budget_tokens":1024}`, "a final `assistant` message must start with a thinking block"},
		{"openai: a paired call", oa, []string{user, call("call_1", "call_2"), tool("call_2"), tool("call_1"), user}, "", ""},
		{"openai: a 46-character id", oa, []string{user, call(strings.Repeat("x", 46)), tool(strings.Repeat("x", 46))}, "",
			"Expected a string with maximum length 40, but got a string with length 46 instead."},
		{"openai: a call unanswered", oa, []string{user, call("a", "b"), tool("a"), user}, "",
			"The following tool_call_ids did not have response messages: b"},
		{"openai: the last call unanswered", oa, []string{user, call("a")}, "", "did not have response messages: a"},
		{"openai: a result for no call", oa, []string{user, call("a"), tool("a"), tool("b")}, "",
			"messages with role 'tool' must be a response to a preceeding message with 'tool_calls'"},
		{"openai: a picture in a result", oa, []string{user, call("a"),
			`{"role":"tool","tool_call_id":"a","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}`}, "",
			"Image URLs are only allowed for messages with role 'user'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer()
			defer srv.Close()
			srv.Enqueue(Text("ok"))
			body := `{"model":"m","stream":true,"max_tokens":10,"messages":[` + strings.Join(tt.msgs, ",") + `]` + tt.extra + `}`
			resp := post(t, srv, tt.path, body, "Anthropic-Version: 2023-06-01")
			got := readAll(t, resp)
			switch {
			case tt.want == "" && resp.StatusCode != http.StatusOK:
				t.Errorf("status %d, want 200: %s", resp.StatusCode, got)
			case tt.want != "" && (resp.StatusCode != http.StatusBadRequest || !strings.Contains(got, tt.want)):
				t.Errorf("status %d %s, want 400 saying %q", resp.StatusCode, got, tt.want)
			}
		})
	}
}
