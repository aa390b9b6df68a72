package shell

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// validSessionID says what a session id must look like to become a directory
// name. Anything else (separators, dots, spaces, control characters) could
// name a path outside the workspace root, so it is refused, not rewritten:
// two different ids must never map to the same directory.
//
// A loop rather than `^[A-Za-z0-9_-]{1,128}$`: the bounded repeat compiles
// to 128 copies of the class, some 90 KiB held for the process's life.
func validSessionID(id string) bool {
	if len(id) < 1 || len(id) > 128 {
		return false
	}
	for _, c := range []byte(id) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// workspace returns the session's workspace directory, creating it (0700)
// on first use.
func workspace(root, id string) (string, error) {
	if !validSessionID(id) {
		if len(id) > 40 {
			id = id[:40] + "…"
		}
		return "", fmt.Errorf("invalid session id %q: want 1-128 characters of A-Z, a-z, 0-9, _ and -", id)
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("workspace root: %w", err)
	}
	dir := filepath.Join(root, id)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("session workspace: %w", err)
	}
	// An earlier command could have replaced the directory with a symlink
	// (the root is writable by the same user); do not follow it.
	info, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("session workspace: %w", err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("session workspace %s is not a directory", dir)
	}
	return dir, nil
}

// SessionWorkspace is the workspace the shell tool gives session id under
// dataDir (created on first use): where other tools put files for the
// shell to work on (an installed skill's scripts, #30 §5).
func SessionWorkspace(dataDir, id string) (string, error) {
	return workspace(filepath.Join(dataDir, "workspace"), id)
}
