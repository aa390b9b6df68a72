package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/parleybot/parley/agent/llm"
)

type fakeUntrusted struct{ Tool }

func (fakeUntrusted) UntrustedOutput() bool { return true }

type plainTool struct{}

func (plainTool) Spec() llm.ToolSpec { return llm.ToolSpec{Name: "calc"} }

func (t plainTool) Name() string { return t.Spec().Name }
func (plainTool) Execute(context.Context, Caller, json.RawMessage) (string, error) {
	return "", nil
}

func TestTaintedHistory(t *testing.T) {
	tools := map[string]Tool{"web_fetch": fakeUntrusted{plainTool{}}, "calc": plainTool{}}
	tests := []struct {
		name    string
		history []llm.Message
		want    bool
	}{
		{"only the caller", []llm.Message{{Role: llm.RoleUser, Author: "ann", Text: "hi"}, {Role: llm.RoleAssistant, Text: "hello"}}, false},
		{"a plain tool's result", []llm.Message{{Role: llm.RoleTool, ToolName: "calc", Text: "4"}}, false},
		{"a fetched page", []llm.Message{{Role: llm.RoleTool, ToolName: "web_fetch", Text: "page"}}, true},
		{"someone else spoke", []llm.Message{{Role: llm.RoleUser, Author: "ann"}, {Role: llm.RoleUser, Author: "bob"}}, true},
	}
	for _, tt := range tests {
		if got := taintedHistory(tt.history, tools, "ann"); got != tt.want {
			t.Errorf("%s: tainted = %v, want %v", tt.name, got, tt.want)
		}
	}
}
