package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent"
)

type noteArgs struct {
	Text string `json:"text" jsonschema:"the note"`
	Pin  bool   `json:"pin,omitempty"`
}

func note(context.Context, agent.Caller, noteArgs) (string, error) { return "ok", nil }

// TestFuncNames: Func refuses a name a model API would refuse, up front.
func TestFuncNames(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"note", true},
		{"kb_search", true},
		{"web-fetch", true},
		{"", false},
		{"two words", false},
		{"note.add", false},
		{strings.Repeat("n", 65), false},
	}
	for _, tt := range tests {
		tool, err := agent.Func(tt.name, "notes", note)
		if (err == nil) != tt.ok {
			t.Errorf("Func(%q): err %v, want ok=%v", tt.name, err, tt.ok)
		}
		if err == nil && tool.Name() != tt.name {
			t.Errorf("Func(%q).Name() = %q", tt.name, tool.Name())
		}
	}
}

// TestFuncSchemaOnFirstUse: the schema is generated when first used, is
// the one the model sees and the one calls are checked against, and a type
// jsonschema cannot describe panics there, naming the tool.
func TestFuncSchemaOnFirstUse(t *testing.T) {
	tool, err := agent.Func("note", "keeps a note", note)
	if err != nil {
		t.Fatal(err)
	}
	spec := tool.Spec()
	var schema struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(spec.Schema, &schema); err != nil {
		t.Fatalf("schema %s: %v", spec.Schema, err)
	}
	if spec.Name != "note" || spec.Description != "keeps a note" || len(schema.Properties) != 2 ||
		len(schema.Required) != 1 || schema.Required[0] != "text" {
		t.Errorf("spec %s %q %s", spec.Name, spec.Description, spec.Schema)
	}
	if _, err := tool.Execute(t.Context(), agent.Caller{}, json.RawMessage(`{"pin":true}`)); err == nil ||
		!strings.Contains(err.Error(), "invalid arguments") {
		t.Errorf("a call without text: %v, want invalid arguments", err)
	}
	if out, err := tool.Execute(t.Context(), agent.Caller{}, json.RawMessage(`{"text":"milk"}`)); err != nil || out != "ok" {
		t.Errorf("a valid call: %q, %v", out, err)
	}

	bad, err := agent.Func("pipe", "cannot be described", func(context.Context, agent.Caller, struct{ C chan int }) (string, error) {
		return "", nil
	})
	if err != nil {
		t.Fatalf("Func must not build the schema: %v", err)
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "tool pipe") {
			t.Errorf("Spec of an undescribable type: panic %v, want one naming the tool", p)
		}
	}()
	bad.Spec()
}
