package agent

import (
	"context"
	"iter"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/llm"
)

// downProvider fails every call, forcing the extractive summary.
type downProvider struct{}

func (downProvider) Stream(context.Context, llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		yield(llm.Event{}, &llm.Error{Provider: "test", Kind: llm.KindServer, Status: 503})
	}
}

func TestExtractiveSummary(t *testing.T) {
	msgs := []llm.Message{
		{Role: llm.RoleUser, Text: "Can you fix the build in cmd/parley/main.go? See https://ci.example.com/run/42."},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "shell", Arguments: []byte(`{"command":"go build ./internal/store/db.go"}`)}}},
		{Role: llm.RoleTool, ToolCallID: "1", ToolName: "shell", Text: "db.go:12: undefined: sql\nmore", IsError: true},
		{Role: llm.RoleAssistant, Text: "We decided to keep SQLite in WAL mode."},
		{Role: llm.RoleUser, Text: "我们决定下周发布。\nShould we also bump the Go version?"},
		{Role: llm.RoleAssistant, Text: "Yes, to 1.26.9."},
	}
	got := ExtractiveSummary(msgs)
	for _, want := range []string{
		"Started with: Can you fix the build", "cmd/parley/main.go", "./internal/store/db.go",
		"https://ci.example.com/run/42", "shell: db.go:12: undefined: sql", "We decided to keep SQLite in WAL mode.",
		"我们决定下周发布。", "Should we also bump the Go version?", "Last answer: Yes, to 1.26.9.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}

func TestTailStart(t *testing.T) {
	u := func(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Text: s} }
	a := llm.Message{Role: llm.RoleAssistant, Text: "ok", ToolCalls: []llm.ToolCall{{ID: "x", Name: "t"}}}
	r := llm.Message{Role: llm.RoleTool, ToolCallID: "x", Text: strings.Repeat("r", 400)}
	h := []llm.Message{u("one"), a, r, u("two"), a, r, u("three"), a, r}
	if got := tailStart(h, 0); got != 6 {
		t.Fatalf("tiny budget: tail starts at %d, want the last user message (6)", got)
	}
	if got := tailStart(h, 1e6); got != 0 {
		t.Fatalf("huge budget: tail starts at %d, want 0", got)
	}
	if got := tailStart([]llm.Message{a, r}, 100); got != -1 {
		t.Fatalf("no user message: %d", got)
	}
}

// FuzzCompact: whatever the transcript, compaction leaves every tool call
// paired with its result, starts the kept tail at a user message, and does
// not grow the prompt.
func FuzzCompact(f *testing.F) {
	f.Add([]byte{0, 2, 3, 0, 2, 7, 11, 0, 1}, uint16(300))
	f.Add([]byte{0, 6, 3, 3, 0, 1, 0, 2, 0}, uint16(50))
	f.Fuzz(func(t *testing.T, script []byte, window uint16) {
		history := Heal(transcriptFrom(script))
		for i := range history {
			history[i].Text += strings.Repeat("word ", int(script[i%len(script)])*20)
		}
		r := &Runner{RunnerConfig: RunnerConfig{Provider: downProvider{}, ContextWindow: int(window) + 100}}
		c, _ := r.compactor()
		req := llm.Request{System: "sys"}
		out, info := c.compact(t.Context(), req, history, len(script)%2 == 0)
		checkPaired(t, out)
		if info == nil {
			return
		}
		if info.After > info.Before {
			t.Fatalf("compaction grew the prompt: %d → %d", info.Before, info.After)
		}
		// The history tier's summary, if it ran (after the turn tier's, if
		// that one did: "turn+extractive"), leads the history.
		tier := info.Method
		if _, after, ok := strings.Cut(tier, "+"); ok {
			tier = after
		} else if strings.HasPrefix(tier, MethodTurn) {
			tier = "snip"
		}
		if tier != "snip" && (len(out) < 3 || !strings.HasPrefix(out[0].Text, SummaryPrefix) || out[2].Role != llm.RoleUser) {
			t.Fatalf("summary shape wrong: %+v", out)
		}
	})
}

func TestCompactSummaryFallsBackWhenModelFails(t *testing.T) {
	var h []llm.Message
	for range 30 {
		h = append(h, llm.Message{Role: llm.RoleUser, Text: strings.Repeat("question ", 40) + "?"},
			llm.Message{Role: llm.RoleAssistant, Text: strings.Repeat("answer ", 40)})
	}
	r := &Runner{RunnerConfig: RunnerConfig{Provider: downProvider{}, ContextWindow: 2000}}
	c, _ := r.compactor()
	out, info := c.compact(t.Context(), llm.Request{}, h, false)
	if info == nil || info.Method != "extractive" || !strings.Contains(out[0].Text, "extractive summary") {
		t.Fatalf("info %+v, first %q", info, out[0].Text)
	}
}
