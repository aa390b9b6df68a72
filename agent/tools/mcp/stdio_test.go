//go:build unix

package mcp

import (
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/parleybot/parley/agent"
)

// The test binary re-executes itself as a stdio server (see TestMain).
func TestStdioServer(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", "sk-parley-secret")
	t.Setenv("PARLEY_TELEGRAM_TOKEN", "bot-secret")

	b, errs := Connect(t.Context(), []ServerConfig{{
		Name:    "proc",
		Command: exe,
		Env:     map[string]string{stdioServerEnv: "1", "GREETING": "hello"},
	}}, nil)
	if len(errs) > 0 {
		t.Fatalf("Connect: %v", errorsText(errs))
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = b.Close()
		}
	})

	env, err := toolNamed(t, b, "proc__environ").Execute(t.Context(), agent.Caller{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]bool{}
	for _, kv := range strings.Split(env, "\n") {
		name, _, _ := strings.Cut(kv, "=")
		vars[name] = true
	}
	for _, secret := range []string{"sk-parley-secret", "bot-secret", "OPENAI_API_KEY"} {
		if strings.Contains(env, secret) {
			t.Errorf("child environment contains %q:\n%s", secret, env)
		}
	}
	for _, want := range []string{"PATH", "GREETING", stdioServerEnv} {
		if !vars[want] {
			t.Errorf("child environment lacks %s:\n%s", want, env)
		}
	}
	for name := range vars {
		switch name {
		case "PATH", "HOME", "GREETING", stdioServerEnv:
		default:
			t.Errorf("child environment has unexpected %s", name)
		}
	}

	out, err := toolNamed(t, b, "proc__pid").Execute(t.Context(), agent.Caller{}, json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(out)
	if err != nil || pid == os.Getpid() {
		t.Fatalf("pid tool = %q", out)
	}
	closed = true
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Close waited for the child, so it is gone (and reaped).
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("server process %d still exists after Close (kill 0: %v)", pid, err)
	}
}

// A server that exits at once is reported with what it said on stderr.
func TestStdioServerStderrInError(t *testing.T) {
	_, errs := Connect(t.Context(), []ServerConfig{{
		Name:    "dies",
		Command: "/bin/sh",
		Args:    []string{"-c", "echo 'GITHUB_TOKEN is not set' >&2; exit 1"},
	}}, nil)
	if len(errs) != 1 {
		t.Fatalf("errors = %v", errs)
	}
	if msg := errs[0].Error(); !strings.HasPrefix(msg, `mcp server "dies": connect:`) || !strings.Contains(msg, "GITHUB_TOKEN is not set") {
		t.Errorf("error = %q", msg)
	}
}
