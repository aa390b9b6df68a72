package shell

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Summarize describes the call for the person who approves it, e.g.
// "run `ls -la build/` in the session workspace", with the whole command:
// a tail past a cut ("… | sh") is where a bad command hides. It is made
// visible exactly: line breaks show as ⏎ and invisible or
// direction-changing characters as <U+XXXX>, so an approver cannot be shown
// one command and asked to approve another. A command the blocklist will
// refuse says so, so nobody approves it in vain.
func (t *tool) Summarize(raw json.RawMessage) string {
	var a Args
	if err := json.Unmarshal(raw, &a); err != nil || strings.TrimSpace(a.Command) == "" {
		return "run a shell command (its arguments are unreadable) in the session workspace"
	}
	s := "run " + codeSpan(visible(a.Command, maxCommandRunes)) + " in the session workspace"
	if a.TimeoutSeconds > 0 {
		if d, err := t.timeoutFor(a.TimeoutSeconds); err == nil {
			s += " (timeout " + seconds(d) + ")"
		}
	}
	var blocked *BlockedError
	if err := t.blocklist.check(a.Command); errors.As(err, &blocked) {
		s += " — will be refused by the blocklist (" + blocked.Rule + ")"
	}
	return s
}

// visible renders a command on one line, at most limit runes.
func visible(cmd string, limit int) string {
	cmd = strings.ReplaceAll(cmd, "\r\n", "\n")
	var b strings.Builder
	n := 0
	for len(cmd) > 0 {
		if n == limit {
			b.WriteString("…")
			break
		}
		r, size := utf8.DecodeRuneInString(cmd)
		cmd = cmd[size:]
		n++
		switch {
		case r == '\n' || r == '\r':
			b.WriteString("⏎")
		case r == '\t':
			b.WriteByte(' ')
		case r == utf8.RuneError && size == 1:
			b.WriteString("<invalid byte>")
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || (unicode.IsSpace(r) && r != ' '):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// codeSpan wraps s in a Markdown code span whose fence is longer than any
// run of backquotes inside it.
func codeSpan(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
