package rowdata

import (
	"encoding/json"
	"testing"

	"github.com/parleybot/parley/agent/llm"
)

// TestStoredMessageFormat pins the body format: llm.Message's own JSON, with
// tool-call arguments as a string, so both engines' JSON functions
// (SQLite json_each, PostgreSQL jsonb) can read it.
func TestStoredMessageFormat(t *testing.T) {
	plain := llm.Message{Role: llm.RoleTool, ToolCallID: "c1", ToolName: "shell", Text: "ok", IsError: true}
	got, err := EncodeMessage(plain)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(plain)
	if string(got) != string(want) {
		t.Errorf("body of a message without tool calls:\n got %s\nwant %s (llm.Message's JSON)", got, want)
	}

	call := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
		{ID: "c1", Name: "shell", Arguments: json.RawMessage(`{"cmd": "ls"}`)},
	}}
	got, err = EncodeMessage(call)
	if err != nil {
		t.Fatal(err)
	}
	const wantCall = `{"role":"assistant","tool_calls":[{"id":"c1","name":"shell","arguments":"{\"cmd\": \"ls\"}"}]}`
	if string(got) != wantCall {
		t.Errorf("body of a tool call:\n got %s\nwant %s", got, wantCall)
	}
}
