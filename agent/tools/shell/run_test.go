package shell

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
)

func TestResultText(t *testing.T) {
	tests := []struct {
		cmd  string
		want string
	}{
		{"echo hello", "hello\n"},
		{"true", "(no output)"},
		{"echo oops >&2; exit 2", "exit status 2\noops\n"},
		{"exit 3", "exit status 3"},
		{"kill -9 $$", "signal: killed"},
		{"read line; echo \"[$line]\"", "[]\n"}, // stdin is empty
	}
	tl := newTool(t, nil)
	for _, tt := range tests {
		if got := mustCall(t, tl, "s1", tt.cmd); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

// TestFailedCommandIsAnError: a command that fails is a failed call (an
// *ExitError with its exit code, never transient), whose text is what
// the model reads: the status line, then the output.
func TestFailedCommandIsAnError(t *testing.T) {
	tests := []struct {
		cmd  string
		code int
		text string
	}{
		{"echo oops >&2; exit 2", 2, "exit status 2\noops\n"},
		{"echo 'HTTP 503: connection timed out'; exit 1", 1, "exit status 1\nHTTP 503: connection timed out\n"},
		{"kill -9 $$", -1, "signal: killed"},
	}
	tl := newTool(t, nil)
	for _, tt := range tests {
		out, err := tl.Execute(t.Context(), agent.Caller{SessionID: "s1"}, argsJSON(t, Args{Command: tt.cmd}))
		ee, ok := errors.AsType[*ExitError](err)
		if !ok {
			t.Errorf("%q: got (%q, %v), want an *ExitError", tt.cmd, out, err)
			continue
		}
		if ee.Code != tt.code || err.Error() != tt.text || agent.Transient(err) {
			t.Errorf("%q: code %d, text %q, transient %v; want %d, %q, false", tt.cmd, ee.Code, err.Error(), agent.Transient(err), tt.code, tt.text)
		}
	}
}

func TestTimeoutKillsProcessGroup(t *testing.T) {
	tl := newTool(t, func(o *Options) { o.Timeout = 300 * time.Millisecond })
	out, err := call(t, tl, "s1", "sleep 100 & echo $!; sleep 100")
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("got (%q, %v), want a *TimeoutError", out, err)
	}
	if !strings.HasPrefix(err.Error(), "timed out after 0.3s (every process it started was killed)") {
		t.Errorf("error = %q", err)
	}
	if !strings.Contains(err.Error(), te.Output) {
		t.Errorf("error %q does not include the partial output %q", err, te.Output)
	}
	assertKilled(t, firstPID(t, te.Output)) // the grandchild, not just the shell
}

func TestCancellationKillsProcessGroup(t *testing.T) {
	tl := newTool(t, nil)
	// In the workspace: the sandbox lets the command write nowhere else.
	dir, err := workspace(tl.settings.workspaceRoot, "s1")
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := tl.Execute(ctx, agent.Caller{SessionID: "s1"}, argsJSON(t, Args{Command: "sleep 100 & echo $! > " + fifo + "; wait"}))
		errc <- err
	}()
	started := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // returns once the command has written and closed it
		started <- b
	}()
	var pidText []byte
	select {
	case pidText = <-started:
	case err := <-errc:
		t.Fatalf("command ended before it started: %v", err)
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Execute did not return after cancellation")
	}
	assertKilled(t, firstPID(t, string(pidText)))
}

func TestCanceledBeforeStart(t *testing.T) {
	tl := newTool(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tl.Execute(ctx, agent.Caller{SessionID: "s1"}, argsJSON(t, Args{Command: "touch ran"}))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Join(tl.settings.workspaceRoot, "s1", "ran")); err == nil {
		t.Error("the command ran after cancellation")
	}
}

func TestBackgroundJobsDoNotOutliveTheCall(t *testing.T) {
	tl := newTool(t, nil)
	out := mustCall(t, tl, "s1", "sleep 100 >/dev/null 2>&1 & echo $!")
	assertKilled(t, firstPID(t, out))
}

// A process that leaves the process group and the session (setsid) still
// does not outlive the call: it is reparented to the supervisor, which
// kills it when the shell exits.
func TestSetsidDoesNotOutliveTheCall(t *testing.T) {
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("setsid not installed")
	}
	tl := newTool(t, nil)
	// The inner shell reports its pid through a fifo after setsid has
	// moved it to a new session, then becomes a sleep that holds stdout.
	start := time.Now()
	out := mustCall(t, tl, "s1", `mkfifo f; setsid sh -c 'echo $$ > f; exec sleep 1000' & read pid < f; echo $pid`)
	if d := time.Since(start); d > killGrace {
		t.Errorf("the call took %s: it waited for the escaped process", d)
	}
	assertKilled(t, firstPID(t, out))
}

// The same when the escapee is a grandchild whose parent exited first,
// and the shell returns at once: `setsid sleep 1000 &`.
func TestBackgroundSetsidIsGone(t *testing.T) {
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("setsid not installed")
	}
	tl := newTool(t, nil)
	out := mustCall(t, tl, "s1", `setsid sleep 1000 >/dev/null 2>&1 & echo $!`)
	pid := firstPID(t, out)
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		syscall.Kill(pid, syscall.SIGKILL) // do not leak it
		t.Fatalf("kill -0 %d after the call = %v, want ESRCH: setsid sleep outlived the command", pid, err)
	}
}

func TestTimeoutFor(t *testing.T) {
	tl := newTool(t, func(o *Options) { o.Timeout = 30 * time.Second; o.MaxTimeout = 2 * time.Minute })
	tests := []struct {
		secs    int
		want    time.Duration
		wantErr bool
	}{
		{0, 30 * time.Second, false},
		{5, 5 * time.Second, false},
		{120, 2 * time.Minute, false},
		{121, 2 * time.Minute, false},
		{1 << 62, 2 * time.Minute, false},
		{-1, 0, true},
	}
	for _, tt := range tests {
		got, err := tl.timeoutFor(tt.secs)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("timeoutFor(%d) = %v, %v; want %v, error %v", tt.secs, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestHelperSharesItsTasksWorkspace: a caller that names another
// session's workspace (a task's helper names its task's) runs there —
// what it writes the task reads — and a session of its own stays apart.
func TestHelperSharesItsTasksWorkspace(t *testing.T) {
	tl := newTool(t, nil)
	helper := agent.Caller{SessionID: "helper1", Workspace: "task1"}
	if _, err := tl.Execute(t.Context(), helper, argsJSON(t, Args{Command: "echo found > notes.txt"})); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		session, want string
	}{{"task1", "found\n"}, {"helper1", "missing\n"}} {
		out, err := tl.Execute(t.Context(), agent.Caller{SessionID: tc.session}, argsJSON(t, Args{Command: "cat notes.txt 2>/dev/null || echo missing"}))
		if err != nil || out != tc.want {
			t.Errorf("session %s reads %q, %v; want %q", tc.session, out, err, tc.want)
		}
	}
}
