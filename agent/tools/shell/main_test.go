package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/internal/harden"
)

// prSetChildSubreaper makes orphaned descendants children of this test
// process, so a test can wait for a grandchild the tool killed — kill -0
// alone cannot tell a dead-but-unreaped process from a live one.
const prSetChildSubreaper = 36

var subreaper bool

// A fake secret in this test process's environment, standing for Parley's
// model key and platform tokens. /proc/<pid>/environ shows the
// environment a process was executed with, not later Setenv calls, so
// TestMain re-executes the test binary once with it.
const (
	secretVar   = "PARLEY_TEST_FAKE_SECRET"
	secretValue = "sk-fake-secret-6b1f0e2d9c"
)

func TestMain(m *testing.M) {
	// The shell tool re-executes this binary as its sandbox stages.
	MaybeRunSandbox()
	if os.Getenv(secretVar) == "" {
		exe, err := os.Executable()
		if err == nil {
			err = syscall.Exec(exe, os.Args, append(os.Environ(), secretVar+"="+secretValue))
		}
		fmt.Fprintln(os.Stderr, "re-execute with a fake secret:", err)
		os.Exit(2)
	}
	// As cmd/parley's main does.
	if err := harden.NonDumpable(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	subreaper = errno == 0
	os.Exit(m.Run())
}

func newTool(t testing.TB, mod func(*Options)) *tool {
	t.Helper()
	opts := Options{DataDir: t.TempDir()}
	if mod != nil {
		mod(&opts)
	}
	tl, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tl.(*tool)
}

func argsJSON(t testing.TB, a Args) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// call runs a command through the public agent.Tool interface, schema
// validation included, and returns what the model reads: the output, or
// the status and output of a command that failed (an *ExitError, which
// TestFailedCommandIsAnError checks as such); err is any other failure.
func call(t *testing.T, tl agent.Tool, session, command string) (string, error) {
	t.Helper()
	out, err := tl.Execute(context.Background(), agent.Caller{SessionID: session}, argsJSON(t, Args{Command: command}))
	if ee, ok := errors.AsType[*ExitError](err); ok {
		return ee.Error(), nil
	}
	return out, err
}

func mustCall(t *testing.T, tl agent.Tool, session, command string) string {
	t.Helper()
	out, err := call(t, tl, session, command)
	if err != nil {
		t.Fatalf("%q: %v", command, err)
	}
	return out
}

// firstPID reads the pid a command printed on its first line.
func firstPID(t *testing.T, out string) int {
	t.Helper()
	line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 1 {
		t.Fatalf("no pid in output %q", out)
	}
	return pid
}

// assertKilled waits for pid, which must be an orphan reparented to this
// test process, to be gone, and checks that SIGKILL is what ended it. The
// timer only turns a broken kill into a failure instead of a hang.
func assertKilled(t *testing.T, pid int) {
	t.Helper()
	if !subreaper {
		t.Skip("cannot become a child subreaper; cannot observe grandchildren")
	}
	type waited struct {
		status syscall.WaitStatus
		err    error
	}
	done := make(chan waited, 1)
	go func() {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		done <- waited{ws, err}
	}()
	select {
	case w := <-done:
		if errors.Is(w.err, syscall.ECHILD) {
			// Killed together with its shell, it may have been reaped by
			// the shell's own waitpid in the instant before the shell
			// died: then it is not ours to wait for, and kill -0 below
			// still proves it is gone.
			break
		}
		if w.err != nil {
			t.Fatalf("wait for pid %d: %v", pid, w.err)
		}
		if !w.status.Signaled() || w.status.Signal() != syscall.SIGKILL {
			t.Errorf("pid %d ended with %v, want killed by SIGKILL", pid, describe(w.status))
		}
	case <-time.After(20 * time.Second):
		syscall.Kill(pid, syscall.SIGKILL) // the process this test started; do not leak it
		t.Fatalf("pid %d still running: the process group was not killed", pid)
	}
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("kill -0 %d = %v, want ESRCH", pid, err)
	}
}

func describe(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	return fmt.Sprintf("exit status %d", ws.ExitStatus())
}
