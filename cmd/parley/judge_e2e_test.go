package main

import (
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/guard"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// judgeModel is a model that answers the memory judge only in one way:
// structured (asked with the judge's format) or never clearly. The main
// turn calls the memory tool once, then answers.
func judgeModel(structured bool) func(llmtest.Request) llmtest.Reply {
	return func(r llmtest.Request) llmtest.Reply {
		switch {
		case strings.Contains(string(r.Body), "You vet entries"):
			if structured && r.FormatName() == guard.JudgeFormat.Name {
				return llmtest.Text(`{"verdict":"safe","reason":""}`)
			}
			return llmtest.Text("Sure! That sounds like a nice fact to remember.")
		case r.LastText("tool") != "":
			return llmtest.Text("Done.")
		}
		return llmtest.ToolCall("c1", "memory", `{"action":"add","target":"profile","content":"prefers Go"}`)
	}
}

// TestMemoryDemoStructuredJudge: the README's first demo against a model
// that answers the judge only in the structured form: it is saved.
func TestMemoryDemoStructuredJudge(t *testing.T) {
	srv := llmtest.NewServer(llmtest.WithResponder(judgeModel(true)))
	defer srv.Close()
	sb := newSandbox(t).withLLM(srv)
	out, errOut, code := sb.run(t, "remember that I prefer Go\n/memory\n", "chat")
	if code != 0 || !strings.Contains(out, "1. prefers Go") {
		t.Fatalf("exit %d; not saved?\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestMemoryJudgeUnclearToldInFull: a judge that never answers clearly
// refuses the write; the status line shows the first line whole, and the
// model reads the whole message, naming memory.guard_model.
func TestMemoryJudgeUnclearToldInFull(t *testing.T) {
	srv := llmtest.NewServer(llmtest.WithResponder(judgeModel(false)))
	defer srv.Close()
	sb := newSandbox(t).withLLM(srv)
	out, errOut, code := sb.run(t, "remember that I prefer Go\n/memory\n", "chat")
	if code != 0 || !strings.Contains(out, "I don't remember anything about you yet") {
		t.Fatalf("exit %d; saved?\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	first := "memory rejected (unverified): the memory judge (memory.guard_model) gave no clear verdict, so the entry was not saved"
	if !strings.Contains(out, "memory failed: "+first+"\n") {
		t.Errorf("the status line does not show the first line whole:\n%s", out)
	}
	var told string
	for _, r := range srv.Requests() {
		if s := r.LastText("tool"); s != "" {
			told = s
		}
	}
	for _, want := range []string{first, "Sure! That sounds like a nice fact", "Tell the user", "PARLEY_MEMORY_GUARD_MODEL", "parley doctor", "short plain fact about the user."} {
		if !strings.Contains(told, want) {
			t.Errorf("the model was not told %q:\n%s", want, told)
		}
	}
}
