package shell

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// protectedPaths matches references to Parley's own files (config,
// database) in a command. Like the rest of the blocklist it matches text:
// a glob (parley.d?), a variable or a relative path that never spells the
// name (../../*.db) gets through. It stops the obvious `cat parley.db`,
// `sqlite3 /var/lib/parley/parley.db` and `cat ~/.config/parley/config.yaml`.
type protectedPaths struct {
	// full are absolute paths (as given and with symlinks resolved),
	// lower-cased. A reference to one or to anything under it matches.
	full []protectedPath
	// bases are the file names of protected files, lower-cased. A word
	// that starts with one matches, so parley.db also catches
	// parley.db-wal, parley.db-shm and parley.db-journal. Directories
	// contribute no base name: "parley" or "data" would refuse far too
	// much.
	bases []string
	// workspaceRoot is exempt: when the protected directory is the data
	// directory, the session workspaces live inside it and a command must
	// be able to name its own files.
	workspaceRoot string
}

type protectedPath struct {
	path string
	dir  bool
}

func newProtectedPaths(paths []string, workspaceRoot string) (protectedPaths, error) {
	p := protectedPaths{workspaceRoot: strings.ToLower(workspaceRoot)}
	for _, raw := range paths {
		if strings.TrimSpace(raw) == "" {
			continue
		}
		abs, err := filepath.Abs(raw)
		if err != nil {
			return protectedPaths{}, fmt.Errorf("protected path %q: %w", raw, err)
		}
		if abs == "/" {
			return protectedPaths{}, fmt.Errorf("protected path %q would refuse every command", raw)
		}
		// A path that does not exist yet (the database before first
		// start) is taken to be a file.
		info, err := os.Stat(abs)
		dir := err == nil && info.IsDir()
		forms := []string{abs}
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			forms = append(forms, real)
		}
		for _, f := range forms {
			p.full = append(p.full, protectedPath{path: strings.ToLower(f), dir: dir})
		}
		if !dir {
			p.bases = append(p.bases, strings.ToLower(filepath.Base(abs)))
		}
	}
	return p, nil
}

// referenced returns the first protected path text (prepared by pathText)
// names.
func (p protectedPaths) referenced(text string) (string, bool) {
	for _, f := range p.full {
		for from := 0; ; {
			i := strings.Index(text[from:], f.path)
			if i < 0 {
				break
			}
			i += from
			from = i + 1
			if i > 0 && isPathByte(text[i-1]) {
				continue // a longer path that merely ends with this one
			}
			end := i + len(f.path)
			switch {
			case end == len(text) || !isPathByte(text[end]):
				return f.path, true
			case text[end] == '/':
				ref := text[i:pathEnd(text, end)]
				if f.dir && p.inWorkspace(path.Clean(ref)) {
					continue
				}
				return ref, true
			case !f.dir:
				return f.path, true // parley.db-wal, config.yaml.bak
			}
		}
	}
	for _, b := range p.bases {
		for from := 0; ; {
			i := strings.Index(text[from:], b)
			if i < 0 {
				break
			}
			i += from
			from = i + 1
			if i > 0 && isNameByte(text[i-1]) {
				continue // myparley.db is someone else's file
			}
			return text[i:pathEnd(text, i)], true
		}
	}
	return "", false
}

func (p protectedPaths) inWorkspace(c string) bool {
	return c == p.workspaceRoot || strings.HasPrefix(c, p.workspaceRoot+"/")
}

func pathEnd(text string, i int) int {
	for i < len(text) && isPathByte(text[i]) {
		i++
	}
	return i
}

// isPathByte is a byte that can continue a path word.
func isPathByte(c byte) bool {
	return isNameByte(c) || c == '/' || c == '~' || c == '*' || c == '?' || c == '[' || c == ']' || c == '+' || c == '@' || c == '%'
}

// isNameByte is a byte that can continue a file name.
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c >= 0x80
}
