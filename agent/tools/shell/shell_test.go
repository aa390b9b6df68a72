package shell

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
)

func TestApprovalPolicyIsAlways(t *testing.T) {
	var tl agent.Tool = newTool(t, nil)
	a, ok := tl.(agent.Approvable)
	if !ok {
		t.Fatal("shell tool does not implement agent.Approvable")
	}
	if p := a.ApprovalPolicy(); p != agent.PolicyAlways {
		t.Errorf("ApprovalPolicy = %q, want %q", p, agent.PolicyAlways)
	}
}

func TestSpec(t *testing.T) {
	spec := newTool(t, nil).Spec()
	if spec.Name != "shell" {
		t.Errorf("name = %q", spec.Name)
	}
	var schema struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(spec.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if _, ok := schema.Properties["timeout_seconds"]; !ok || len(schema.Required) != 1 || schema.Required[0] != "command" {
		t.Errorf("schema = %s, want required command and optional timeout_seconds", spec.Schema)
	}
	for _, want := range []string{"approve", "60s", "600s", "16384 bytes"} {
		if !strings.Contains(spec.Description, want) {
			t.Errorf("description does not mention %q: %s", want, spec.Description)
		}
	}
}

func TestArgumentsValidated(t *testing.T) {
	tl := newTool(t, nil)
	for _, raw := range []string{`{}`, `{"command": 5}`, `{"command": "ls", "timeout_seconds": "ten"}`, `not json`, `{"command": "   "}`, `{"command": "ls", "timeout_seconds": -5}`} {
		if out, err := tl.Execute(t.Context(), agent.Caller{SessionID: "s1"}, json.RawMessage(raw)); err == nil {
			t.Errorf("%s: got %q, want an error", raw, out)
		}
	}
}

func TestSummarize(t *testing.T) {
	tl := newTool(t, func(o *Options) { o.MaxTimeout = 5 * time.Minute })
	long := strings.Repeat("a", 250)
	tooLong := strings.Repeat("b", maxCommandRunes+1)
	tests := []struct {
		args string
		want string
	}{
		{`{"command":"ls -la build/"}`, "run `ls -la build/` in the session workspace"},
		{`{"command":"cd src\nmake test\r\n"}`, "run `cd src⏎make test⏎` in the session workspace"},
		{`{"command":"make","timeout_seconds":120}`, "run `make` in the session workspace (timeout 120s)"},
		{`{"command":"make","timeout_seconds":9999}`, "run `make` in the session workspace (timeout 300s)"},
		{`{"command":"echo ` + "`date`" + `"}`, "run `` echo `date` `` in the session workspace"},
		{`{"command":"echo safe\u202e;ls"}`, "run `echo safe<U+202E>;ls` in the session workspace"},
		{`{"command":"a\u200bb\tc"}`, "run `a<U+200B>b c` in the session workspace"},
		{`{"command":"` + long + ` | sh"}`, "run `" + long + " | sh` in the session workspace"}, // whole: the tail is where it hides
		{`{"command":"` + tooLong + `"}`, "run `" + tooLong[:maxCommandRunes] + "…` in the session workspace — will be refused by the blocklist (too-long-to-review)"},
		{`{"command":"sudo rm -rf /"}`, "run `sudo rm -rf /` in the session workspace — will be refused by the blocklist (wipe-filesystem)"},
		{`{"command":""}`, "run a shell command (its arguments are unreadable) in the session workspace"},
		{`not json`, "run a shell command (its arguments are unreadable) in the session workspace"},
	}
	for _, tt := range tests {
		if got := tl.Summarize(json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("Summarize(%s)\n got %q\nwant %q", tt.args, got, tt.want)
		}
	}
}

func TestNewValidatesOptions(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		opts Options
	}{
		{"no data dir", Options{}},
		{"negative timeout", Options{DataDir: dir, Timeout: -time.Second}},
		{"timeout above max", Options{DataDir: dir, Timeout: 2 * time.Minute, MaxTimeout: time.Minute}},
		{"max above ceiling", Options{DataDir: dir, MaxTimeout: 11 * time.Minute}},
		{"tiny output cap", Options{DataDir: dir, MaxOutput: 10}},
		{"missing shell", Options{DataDir: dir, Shell: "/nonexistent/sh"}},
		{"root protected", Options{DataDir: dir, ProtectedPaths: []string{"/"}}},
	}
	for _, tt := range tests {
		if _, err := New(tt.opts); err == nil {
			t.Errorf("%s: New accepted %+v", tt.name, tt.opts)
		}
	}
	tl := newTool(t, nil)
	s := tl.settings
	if s.timeout != DefaultTimeout || s.maxTimeout != CeilingTimeout || s.maxOutput != DefaultMaxOutput || s.shell != DefaultShell {
		t.Errorf("defaults = %+v", s)
	}
}
