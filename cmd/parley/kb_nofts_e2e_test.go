package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/llm/llmtest"
)

// TestWithoutFTS5: a binary built without the sqlite_fts5 tag says once, at
// start, that the knowledge base is off and how to rebuild; everything
// else keeps working.
func TestWithoutFTS5(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a second binary")
	}
	plain := filepath.Join(t.TempDir(), "parley-plain")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", plain, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build without tags: %v\n%s", err, out)
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	sb := newSandbox(t).withLLM(srv)
	srv.Enqueue(llmtest.Text("Hello there."))

	cmd := sb.command(t.Context(), "chat")
	cmd.Path = plain
	cmd.Stdin = strings.NewReader("hello\n/kb\n/quit\n")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("chat: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
	}
	const off = "the knowledge base is off: this build of Parley has no SQLite FTS5 (rebuild with -tags sqlite_fts5)"
	if n := strings.Count(errOut.String(), off); n != 1 {
		t.Errorf("stderr says the knowledge base is off %d times, want once:\n%s", n, errOut.String())
	}
	if !strings.Contains(out.String(), "Hello there.") {
		t.Errorf("the chat does not answer without FTS5:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "rebuild with -tags sqlite_fts5") {
		t.Errorf("/kb does not say why the knowledge base is off:\n%s", out.String())
	}
	if body := string(srv.Requests()[0].Body); strings.Contains(body, "kb_search") {
		t.Errorf("the model is offered kb_search without a knowledge base")
	}

	ls := sb.command(t.Context(), "kb", "ls")
	ls.Path = plain
	got, err := ls.CombinedOutput()
	if err == nil || !strings.Contains(string(got), off) {
		t.Errorf("parley kb ls without FTS5: %v\n%s", err, got)
	}
}
