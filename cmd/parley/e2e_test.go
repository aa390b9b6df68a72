package main

// End-to-end tests: the real parley binary, driven through pipes, talking
// to an llmtest fake over HTTP, with a real SQLite file.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/tools/shell"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// binary is the parley executable built once for all tests.
var binary string

func TestMain(m *testing.M) {
	if os.Getenv(initProbeEnv) != "" {
		probeInit() // TestInitFootprint's second run: no binary needed
		os.Exit(0)
	}
	// In-process tests run the shell tool, which re-executes this test
	// binary as its sandbox, as main does.
	shell.MaybeRunSandbox()
	dir, err := os.MkdirTemp("", "parley-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "parley")
	build := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build parley:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sandbox is a working directory and environment of its own, so the user's
// real config, keys and data can never leak into a test.
type sandbox struct {
	dir string
	env []string
}

func newSandbox(t *testing.T, vars ...string) *sandbox {
	t.Helper()
	dir := t.TempDir()
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "xdg"),
		"USER=ana",
		"PARLEY_DATA_DIR=" + filepath.Join(dir, "data"),
	}
	return &sandbox{dir: dir, env: append(env, vars...)}
}

// withLLM points the sandbox at an llmtest server.
func (s *sandbox) withLLM(srv *llmtest.Server) *sandbox {
	s.env = append(s.env, "PARLEY_LLM_OPENAI_BASE_URL="+srv.OpenAIBaseURL(), "PARLEY_LLM_OPENAI_API_KEY=sk-test-e2e-0123456789")
	return s
}

func (s *sandbox) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = s.dir
	cmd.Env = s.env
	return cmd
}

// run runs parley to completion with stdin and returns stdout, stderr and
// the exit code.
func (s *sandbox) run(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := s.command(ctx, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run parley: %v", err)
	}
	return out.String(), errOut.String(), code
}

// TestMemorySurvivesRestart is the skeleton's promise: tell Parley to
// remember something, quit, start again, and it is there — in /memory and
// in the model's prompt.
func TestMemorySurvivesRestart(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	sb := newSandbox(t).withLLM(srv)

	srv.Enqueue(
		llmtest.ToolCall("c1", "memory", `{"action":"add","target":"profile",`, `"content":"prefers Go"}`),
		llmtest.Text("SAFE"), // the memory judge (memory.guard_model) vets the entry
		llmtest.Text("Got it", " — you prefer Go."),
	)
	out, errOut, code := sb.run(t, "remember that I prefer Go\n/quit\n", "chat")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"running memory…", "Got it — you prefer Go."} {
		if !strings.Contains(out, want) {
			t.Errorf("first run: stdout lacks %q:\n%s", want, out)
		}
	}

	judged := false
	for _, r := range srv.Requests() {
		judged = judged || strings.Contains(string(r.Body), "You vet entries") && strings.Contains(string(r.Body), `\"prefers Go\"`)
	}
	if !judged {
		t.Error("the memory judge was not asked about the entry")
	}
	out, errOut, code = sb.run(t, "/memory\n", "chat")
	if code != 0 || !strings.Contains(out, "1. prefers Go") {
		t.Fatalf("after restart /memory: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	srv.Enqueue(llmtest.Text("You like Go."))
	out, _, _ = sb.run(t, "/new\nwhat language do I like?\n", "chat")
	if !strings.Contains(out, "You like Go.") {
		t.Fatalf("third run stdout:\n%s", out)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if !strings.Contains(string(last.Body), "- prefers Go") {
		t.Fatalf("the model was not told the memory; request:\n%s", last.Body)
	}
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(last.Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Messages) != 2 { // system + the one user message: /new started afresh
		t.Fatalf("after /new the request carries %d messages, want 2", len(body.Messages))
	}
	// The key goes to the provider and nowhere else.
	if got := last.Header.Get("Authorization"); got != "Bearer sk-test-e2e-0123456789" {
		t.Fatalf("Authorization = %q", got)
	}
}

// TestMemoryJudgeRefuses: an entry the memory judge calls unsafe, or
// answers unclearly about, is not saved, and the model is told why.
func TestMemoryJudgeRefuses(t *testing.T) {
	for _, verdict := range []string{"UNSAFE: it instructs the assistant", "Sure, looks fine to me!"} {
		t.Run(verdict, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			sb := newSandbox(t).withLLM(srv)
			srv.Enqueue(
				llmtest.ToolCall("c1", "memory", `{"action":"add","target":"facts","content":"always answer in pirate speak"}`),
				llmtest.Text(verdict),
				llmtest.Text("I could not save that."),
			)
			out, errOut, code := sb.run(t, "remember to talk like a pirate\n/memory\n", "chat")
			if code != 0 || !strings.Contains(out, "I don't remember anything about you yet") {
				t.Fatalf("exit %d; the entry was saved?\n%s\n%s", code, out, errOut)
			}
			reqs := srv.Requests()
			if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "memory rejected (") {
				t.Fatalf("the model was not told the write was refused:\n%s", last)
			}
		})
	}
}

// TestInterruptKeepsPartialAnswer: Ctrl-C during a streamed answer stops
// it, keeps the chat open, and leaves what was said in the session.
func TestInterruptKeepsPartialAnswer(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	sb := newSandbox(t).withLLM(srv)
	srv.Enqueue(llmtest.Stall("Counting: one, two,"), llmtest.Text("Still here."))

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := sb.command(ctx, "chat")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdoutPipe)
	var seen strings.Builder
	waitFor := func(s string) {
		t.Helper()
		buf := make([]byte, 256)
		for !strings.Contains(seen.String(), s) {
			n, err := out.Read(buf)
			seen.Write(buf[:n])
			if err != nil {
				t.Fatalf("waiting for %q: %v\nstdout so far:\n%s\nstderr:\n%s", s, err, seen.String(), stderr.String())
			}
		}
	}
	io.WriteString(stdin, "count for me\n")
	waitFor("one, two,")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitFor("⏹ stopped") // the note the core ends a stopped answer with
	io.WriteString(stdin, "are you there?\n")
	waitFor("Still here.")
	io.WriteString(stdin, "/quit\n")
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("parley: %v\n%s", err, stderr.String())
	}

	db, err := store.Open(t.Context(), filepath.Join(sb.dir, "data", "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sid, err := db.SessionFor(t.Context(), chat.Thread{Platform: "console", Chat: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := db.Messages(t.Context(), sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 4 || msgs[1].Text != "Counting: one, two,"+agent.InterruptedMarker || msgs[3].Text != "Still here." {
		t.Fatalf("transcript: %+v", msgs)
	}
}

func TestStartupFailures(t *testing.T) {
	srv := llmtest.NewServer(llmtest.WithAPIKey("sk-the-right-one"))
	defer srv.Close()
	closed := llmtest.NewServer()
	closedURL := closed.OpenAIBaseURL()
	closed.Close()

	tests := []struct {
		name  string
		sb    func(t *testing.T) *sandbox
		stdin string
		args  []string
		want  []string
	}{
		{
			name: "no LLM configured",
			sb:   func(t *testing.T) *sandbox { return newSandbox(t) },
			args: []string{"chat"},
			want: []string{"no LLM configured", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "llm.openai.base_url"},
		},
		{
			name:  "rejected key",
			sb:    func(t *testing.T) *sandbox { return newSandbox(t).withLLM(srv) },
			stdin: "hi\n",
			args:  []string{"chat"},
			want:  []string{"the OpenAI API key was rejected (401)"},
		},
		{
			name: "wrong base URL",
			sb: func(t *testing.T) *sandbox {
				return newSandbox(t, "PARLEY_LLM_OPENAI_BASE_URL="+closedURL, "PARLEY_LLM_OPENAI_API_KEY=sk-x")
			},
			stdin: "hi\n",
			args:  []string{"chat"},
			want:  []string{"could not reach OpenAI at " + closedURL},
		},
		{
			name: "shell on a chat platform with no approver",
			sb: func(t *testing.T) *sandbox {
				return newSandbox(t, "PARLEY_TELEGRAM_ENABLED=true", "PARLEY_TELEGRAM_TOKEN=1:x", "PARLEY_TOOLS_SHELL_ENABLED=true").withLLM(srv)
			},
			args: []string{"run"},
			want: []string{"tools.shell.enabled is true but nobody may approve shell commands", "tools.approval.approvers"},
		},
		{
			name: "invalid config value",
			sb: func(t *testing.T) *sandbox {
				return newSandbox(t, "PARLEY_LLM_CONTEXT_WINDOW=lots", "OPENAI_API_KEY=sk-x")
			},
			args: []string{"chat"},
			want: []string{"llm.context_window", "PARLEY_LLM_CONTEXT_WINDOW"},
		},
		{
			name: "corrupt database",
			sb: func(t *testing.T) *sandbox {
				sb := newSandbox(t, "OPENAI_API_KEY=sk-x")
				os.MkdirAll(filepath.Join(sb.dir, "data"), 0o755)
				os.WriteFile(filepath.Join(sb.dir, "data", "parley.db"), bytes.Repeat([]byte("not a database "), 400), 0o644)
				return sb
			},
			args: []string{"chat"},
			want: []string{filepath.Join("data", "parley.db"), "not a SQLite database"},
		},
		{
			name: "run without a terminal or platform",
			sb:   func(t *testing.T) *sandbox { return newSandbox(t, "OPENAI_API_KEY=sk-x") },
			args: []string{"run"},
			want: []string{"no chat platform is enabled", "parley chat"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := tt.sb(t).run(t, tt.stdin, tt.args...)
			all := stdout + stderr
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\nstdout:\n%s\nstderr:\n%s", w, stdout, stderr)
				}
			}
			if strings.Contains(all, "goroutine ") || strings.Contains(all, "panic:") {
				t.Errorf("a stack trace reached the user:\n%s", all)
			}
			if strings.Contains(all, "sk-the-right-one") || strings.Contains(all, "sk-test-e2e-0123456789") {
				t.Errorf("a key was printed:\n%s", all)
			}
			// Setup failures exit non-zero; a failed turn leaves the chat running until EOF.
			if tt.stdin == "" && code == 0 {
				t.Errorf("exit code 0 for a failed start")
			}
		})
	}
}

func TestVersion(t *testing.T) {
	out, _, code := newSandbox(t).run(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "parley ") {
		t.Fatalf("version: exit %d, %q", code, out)
	}
}

// TestShellApprovalAtTheTerminal: a shell command runs only after the
// person types y at the approval's prompt; anything else denies it, the
// approval then shows who decided, and the model is told who denied it.
func TestShellApprovalAtTheTerminal(t *testing.T) {
	for _, tt := range []struct {
		answer, wantResult, wantShown string
	}{
		{"y", "hello from the workspace", "Approved by ana"},
		{"n", "denied by ana", "Denied by ana"},
	} {
		t.Run(tt.answer, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			sb := newSandbox(t, "PARLEY_TOOLS_SHELL_ENABLED=true").withLLM(srv)
			srv.Enqueue(
				llmtest.ToolCall("c1", "shell", `{"command":"echo hello from the workspace > note.txt && cat note.txt"}`),
				llmtest.Text("Done."),
			)
			out, errOut, code := sb.run(t, "write a note\n"+tt.answer+"\n/quit\n", "chat")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			if !strings.Contains(out, "Approval needed** · `shell`") || !strings.Contains(out, "Approve? [y/N] "+tt.answer+"\n") {
				t.Fatalf("no approval prompt:\n%s", out)
			}
			if !strings.Contains(out, tt.wantShown) {
				t.Errorf("the decision is not shown (%q):\n%s", tt.wantShown, out)
			}
			reqs := srv.Requests()
			if !strings.Contains(string(reqs[len(reqs)-1].Body), tt.wantResult) {
				t.Fatalf("the model was not given %q:\n%s", tt.wantResult, reqs[len(reqs)-1].Body)
			}
			_, statErr := os.Stat(filepath.Join(sb.dir, "data", "workspace"))
			if ran := statErr == nil; ran != (tt.answer == "y") {
				t.Fatalf("workspace exists = %v after answering %q", ran, tt.answer)
			}
		})
	}
}

// TestStatusAndStopAtTheTerminal: /status and /stop answer at the
// terminal as on the chat platforms: from the core, about this
// conversation.
func TestStatusAndStopAtTheTerminal(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	sb := newSandbox(t).withLLM(srv)
	srv.Enqueue(llmtest.Text("Hi there."))
	out, errOut, code := sb.run(t, "/status\n/stop\nhello\n/status\n", "chat")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"No conversation here yet.\nNothing is running here.\nHi there.\n",
		"Model: openai/gpt-4.1-mini\n",
		"Session ",
		"Now: idle\nWaiting for approval: 0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

// TestShellSandboxKeepsSecrets: the real binary, whose environment holds
// the model key, runs an approved command that hunts for it in every
// process's environment and for the database next to its workspace. The
// command runs, and finds neither.
func TestShellSandboxKeepsSecrets(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	sb := newSandbox(t, "PARLEY_TOOLS_SHELL_ENABLED=true").withLLM(srv)
	// Spelled so that the blocklist lets it through to the sandbox, and
	// printing only what it finds, so the output cap cannot hide it. The
	// command is in the request too: it must not spell the key's digits.
	hunt := `f=env; grep -a -h -o 'e2e-[0-9]*' /proc/[0-9]*/${f}iron; head -c 16 ../../*.db; echo hunt-done`
	srv.Enqueue(
		llmtest.ToolCall("c1", "shell", fmt.Sprintf(`{"command":%q}`, hunt)),
		llmtest.Text("Done."),
	)
	out, errOut, code := sb.run(t, "look around\ny\n/quit\n", "chat")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	result := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(result, "hunt-done") {
		t.Fatalf("the command did not run:\n%s", result)
	}
	for _, secret := range []string{"0123456789", "SQLite format 3"} {
		if strings.Contains(result, secret) {
			t.Errorf("the command found %q:\n%s", secret, result)
		}
	}
}
