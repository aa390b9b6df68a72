package shell

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/parleybot/parley/agent"
)

// What a command runs is not always in the command: `sh p.sh` runs
// whatever p.sh holds, which an earlier step may have written (with
// `base64 -d`, say) where no approver looked. So the approval shows each
// workspace file a command runs or sources — its first lines, size and
// SHA-256 — with the risk notes its content earns, and the runner inspects
// the call again just before it runs: a file changed since the approval
// changes the summary, and the call is refused (agent.Inspector).

// Limits of what the approval shows of a file.
const (
	fileHeadLines = 12
	fileHeadRunes = 600
	// fileReadMax bounds the bytes read to hash and scan one file; a
	// bigger script is hashed whole but scanned for risks only this far.
	fileReadMax = 1 << 20
)

// interpreters run the file named by their first argument that is not an
// option.
var interpreters = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true,
	"python": true, "python3": true, "node": true, "perl": true, "ruby": true, "php": true,
}

var _ agent.Inspector = (*tool)(nil)

// Inspect is Summarize and Risks with what the command runs from the
// caller's workspace.
func (t *tool) Inspect(c agent.Caller, raw json.RawMessage) (summary string, risks []string) {
	summary, risks = t.Summarize(raw), t.Risks(raw)
	var a Args
	if json.Unmarshal(raw, &a) != nil || !validSessionID(c.SessionID) {
		return summary, risks
	}
	dir := filepath.Join(t.settings.workspaceRoot, c.SessionID)
	for _, name := range runFiles(a.Command) {
		shown, notes := inspectFile(dir, name)
		summary += "\n" + shown
		risks = append(risks, notes...)
	}
	return summary, risks
}

// runFiles are the files command runs or sources by a relative path, in
// order, each once: `sh x`, `bash -e x`, `python3 x`, `./x`, `. x`,
// `source x`. It reads simple commands as a shell splits them, well enough
// for the shapes above; anything it cannot read names no file, and the
// command itself is still shown whole.
func runFiles(command string) []string {
	var out []string
	seen := map[string]bool{}
	for _, words := range simpleCommands(command) {
		for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "=") {
			words = words[1:] // VAR=value before the command
		}
		if len(words) == 0 {
			continue
		}
		var file string
		switch first := words[0]; {
		case first == "." || first == "source":
			if len(words) > 1 {
				file = words[1]
			}
		case interpreters[filepath.Base(first)]:
			for _, w := range words[1:] {
				if w == "-c" || w == "-m" {
					break // code or a module, not a file
				}
				if !strings.HasPrefix(w, "-") {
					file = w
					break
				}
			}
		case strings.HasPrefix(first, "./"):
			file = first
		}
		if file == "" || filepath.IsAbs(file) || strings.HasPrefix(file, "~") || strings.ContainsAny(file, "$`*?") {
			continue
		}
		file = filepath.Clean(file)
		if file == ".." || strings.HasPrefix(file, "../") || seen[file] {
			continue
		}
		seen[file] = true
		out = append(out, file)
	}
	return out
}

// simpleCommands splits command into its simple commands' words, at ;, &,
// |, newlines and parentheses, honouring quotes and backslashes.
func simpleCommands(command string) [][]string {
	var (
		out   [][]string
		words []string
		word  strings.Builder
		inW   bool
		quote rune
	)
	endWord := func() {
		if inW {
			words = append(words, word.String())
			word.Reset()
			inW = false
		}
	}
	endCmd := func() {
		endWord()
		if len(words) > 0 {
			out = append(out, words)
			words = nil
		}
	}
	rs := []rune(command)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inW = r, true
		case r == '\\' && i+1 < len(rs):
			i++
			word.WriteRune(rs[i])
			inW = true
		case r == ';' || r == '&' || r == '|' || r == '\n' || r == '(' || r == ')':
			endCmd()
		case r == ' ' || r == '\t':
			endWord()
		default:
			word.WriteRune(r)
			inW = true
		}
	}
	endCmd()
	return out
}

// inspectFile shows workspace file name for the approval, with the risk
// notes of its content.
func inspectFile(dir, name string) (shown string, risks []string) {
	path := filepath.Join(dir, name)
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("runs %s, which does not exist yet: what it will hold is not known", codeSpan(name)),
			[]string{"runs " + name + ", a file whose content cannot be shown before it runs"}
	case err != nil:
		return fmt.Sprintf("runs %s, which cannot be read (%v)", codeSpan(name), err),
			[]string{"runs " + name + ", a file that cannot be shown"}
	case info.Mode()&fs.ModeSymlink != 0:
		return fmt.Sprintf("runs %s, a symbolic link: not followed, not shown", codeSpan(name)),
			[]string{"runs " + name + ", a symbolic link whose target is not shown"}
	case !info.Mode().IsRegular():
		return fmt.Sprintf("runs %s, which is not a regular file", codeSpan(name)),
			[]string{"runs " + name + ", which is not a regular file"}
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("runs %s, which cannot be read (%v)", codeSpan(name), err),
			[]string{"runs " + name + ", a file that cannot be shown"}
	}
	defer f.Close()
	h := sha256.New()
	buf := make([]byte, 32<<10)
	var scanned []byte
	for {
		n, err := f.Read(buf)
		h.Write(buf[:n])
		if len(scanned) < fileReadMax {
			scanned = append(scanned, buf[:min(n, fileReadMax-len(scanned))]...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Sprintf("runs %s, which cannot be read (%v)", codeSpan(name), err),
				[]string{"runs " + name + ", a file that cannot be shown"}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "runs %s (%d bytes, SHA-256 %s), which begins:", codeSpan(name), info.Size(), hex.EncodeToString(h.Sum(nil)))
	for _, line := range firstLines(scanned, fileHeadLines, fileHeadRunes) {
		b.WriteString("\n  " + visible(line, fileHeadRunes))
	}
	if !utf8.Valid(scanned) {
		risks = append(risks, name+" is not text")
	}
	for _, note := range commandRisks(string(scanned)) {
		risks = append(risks, name+": "+note)
	}
	return b.String(), risks
}

// firstLines is up to n lines of data, at most runes runes in all.
func firstLines(data []byte, n, runes int) []string {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	if r := []rune(s); len(r) > runes {
		s = string(r[:runes]) + "…"
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
