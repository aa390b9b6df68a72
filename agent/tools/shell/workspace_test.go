package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorkspaceIsWorkingDirectory(t *testing.T) {
	tl := newTool(t, nil)
	got := strings.TrimSpace(mustCall(t, tl, "sess_A-1", "pwd"))
	want := filepath.Join(tl.settings.workspaceRoot, "sess_A-1")
	if got != want {
		t.Errorf("pwd = %q, want %q", got, want)
	}
	info, err := os.Stat(want)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		t.Errorf("workspace mode = %v, want no group or other access", perm)
	}
}

func TestWorkspacePersistsWithinSessionOnly(t *testing.T) {
	tl := newTool(t, nil)
	mustCall(t, tl, "one", "echo remembered > note.txt && mkdir -p sub && cd sub && echo deep > f")
	if got := mustCall(t, tl, "one", "cat note.txt sub/f"); got != "remembered\ndeep\n" {
		t.Errorf("same session: %q, want the files written by the earlier call", got)
	}
	// The second call starts in the workspace again, not in sub/.
	if got := mustCall(t, tl, "one", "ls"); got != "note.txt\nsub\n" {
		t.Errorf("ls = %q", got)
	}
	if got := mustCall(t, tl, "two", "cat note.txt"); !strings.HasPrefix(got, "exit status 1\n") || !strings.Contains(got, "No such file") {
		t.Errorf("other session: %q, want cat to fail", got)
	}
	// Nothing but its private tmp ($TMPDIR).
	if got := mustCall(t, tl, "two", "ls -A"); got != ".tmp\n" {
		t.Errorf("other session's workspace is not empty: %q", got)
	}
}

func TestInvalidSessionIDsRefused(t *testing.T) {
	tests := []string{
		"", ".", "..", "../x", "a/b", "/abs", `a\b`, "a b", "a\x00b", "a\nb",
		"slack:T1:C1", "ä", "a.b", "~", "$HOME", strings.Repeat("a", 129),
	}
	tl := newTool(t, nil)
	for _, id := range tests {
		out, err := call(t, tl, id, "touch ran")
		if err == nil || !strings.Contains(err.Error(), "invalid session id") {
			t.Errorf("session %q: got (%q, %v), want an invalid session id error", id, out, err)
		}
	}
	entries, err := os.ReadDir(tl.settings.workspaceRoot)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("refused sessions left workspaces behind: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(tl.settings.workspaceRoot), "ran")); err == nil {
		t.Error("a refused call ran its command")
	}
}

func TestWorkspaceSymlinkRefused(t *testing.T) {
	tl := newTool(t, nil)
	root := tl.settings.workspaceRoot
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(root, "evil")); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, tl, "evil", "pwd"); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("err = %v, want a refusal to follow the symlink", err)
	}
}

func TestValidSessionID(t *testing.T) {
	for id, want := range map[string]bool{
		"a": true, "Az09_-": true, strings.Repeat("z", 128): true,
		"": false, strings.Repeat("z", 129): false, "a.b": false, "ä": false, "a b": false,
	} {
		if got := validSessionID(id); got != want {
			t.Errorf("validSessionID(%q) = %v, want %v", id, got, want)
		}
	}
}
