package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// TestFormat: a request's Format goes out as a tool the model must call;
// the call's input is Format.Answer.
func TestFormat(t *testing.T) {
	srv := newServer(t, llmtest.ToolCall("toolu_1", "v", `{"verdict":"safe"}`))
	p := New(Config{APIKey: testKey, BaseURL: srv.AnthropicBaseURL()})
	f := &llm.Format{Name: "v", Schema: json.RawMessage(`{"type":"object","properties":{"verdict":{"type":"string"}},"required":["verdict"]}`)}
	resp, err := llm.Collect(p.Stream(t.Context(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Text: "?"}}, Format: f}))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Answer(resp); got != `{"verdict":"safe"}` {
		t.Errorf("answer %q", got)
	}
	req := srv.Requests()[0]
	if req.FormatName() != "v" {
		t.Errorf("tool_choice: %s", req.Body)
	}
	tools, _ := req.JSON["tools"].([]any)
	if len(tools) != 1 || tools[0].(map[string]any)["name"] != "v" {
		t.Errorf("tools: %s", req.Body)
	}
}
