package format

import (
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/util"
)

// StablePrefix returns the part of a still-streaming answer that is safe
// to render now, so a preview never shows markup that is about to change
// meaning (a literal "**" that becomes bold a moment later, half a link,
// the start of a fence).
//
// The result is a prefix of md, except for one documented addition: when
// md ends inside an open code fence, the fence is closed temporarily (a
// newline if needed, then the fence's container prefix and marker, e.g.
// "\n```"), so the code streams visibly and every consumer (Telegram HTML,
// Slack's markdown_text) sees a closed block. What is held back:
//
//   - an incomplete UTF-8 sequence, a trailing ZWJ or a lone regional
//     indicator (the emoji is still arriving);
//   - a fence opener line and a fence with no content yet;
//   - inside a fence, a partial last line that may be the closing fence;
//   - on the unfinished last line: an unclosed code span, an unmatched
//     emphasis/strikethrough opener or a delimiter run at the very end, a
//     link or image still being written, a partial autolink or tag, a
//     partial character reference, a dangling backslash;
//   - a last line that so far holds only block markers ("- ", "1.", "#",
//     "> ", "---"), a partial table row, or a table header still waiting
//     for its delimiter row.
//
// Complete lines are never held back: emphasis left open across a line
// end is most likely literal. Render the full answer, not its stable
// prefix, once the stream ends.
func StablePrefix(md string) string {
	s := trimPendingCluster(md)
	for range 4 { // each step only shortens s; a few rounds settle it
		t, closed := stableStep(s)
		if closed != "" {
			return t + closed
		}
		if t == s {
			return s
		}
		s = t
	}
	return s
}

// stableStep shortens s once, or returns it with the temporary close of an
// open fence.
func stableStep(s string) (string, string) {
	if r := openFenceAtEnd(s); r != nil {
		if r.bodyStart >= len(s) {
			return s[:r.start], "" // opener only: wait for content
		}
		ls := lineStart(s, len(s))
		if ls < len(s) && ls >= r.bodyStart && mayBecomeCloser(s[ls:], r.marker) {
			s = s[:ls]
		}
		if len(s) <= r.bodyStart {
			return s[:r.start], ""
		}
		return s, r.close(s, len(s))
	}
	ls := lineStart(s, len(s))
	if ls == len(s) {
		if pendingHeaderRow(s) {
			return s[:lineStart(s, len(s)-1)], ""
		}
		return s, ""
	}
	line := s[ls:]
	if markerOnly(line) || strings.HasPrefix(strings.TrimLeft(line, " \t>"), "|") {
		return s[:ls], ""
	}
	cut := pendingInline(line)
	if markerOnly(line[:cut]) {
		return s[:ls], ""
	}
	return s[:ls+cut], ""
}

// trimPendingCluster drops an incomplete UTF-8 sequence, a trailing ZWJ
// and an unpaired trailing regional indicator: the rest of that character
// or emoji is still on its way.
func trimPendingCluster(s string) string {
	for i := 1; i <= utf8.UTFMax && i <= len(s); i++ {
		if utf8.RuneStart(s[len(s)-i]) {
			if !utf8.FullRuneInString(s[len(s)-i:]) {
				s = s[:len(s)-i]
			}
			break
		}
	}
	if strings.HasSuffix(s, "\u200d") {
		s = strings.TrimSuffix(s, "\u200d")
	}
	n, t := 0, s
	for {
		r, size := utf8.DecodeLastRuneInString(t)
		if r < 0x1F1E6 || r > 0x1F1FF {
			break
		}
		n++
		t = t[:len(t)-size]
	}
	if n%2 == 1 {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

// openFenceAtEnd returns the fence left open at the end of s, if any.
func openFenceAtEnd(s string) *region {
	if !strings.ContainsAny(s, "`~") {
		return nil
	}
	rs := findRegions(s)
	if len(rs) == 0 {
		return nil
	}
	if r := &rs[len(rs)-1]; !r.table && !r.hasCloser && r.bodyEnd >= len(s) {
		return r
	}
	return nil
}

// mayBecomeCloser reports whether a partial last line inside a fence could
// still turn into its closing fence.
func mayBecomeCloser(partial, marker string) bool {
	rest := strings.TrimLeft(partial, " \t>")
	return strings.Trim(rest, marker[:1]) == ""
}

// markerOnly reports whether line holds nothing but block markers so far.
func markerOnly(line string) bool {
	rest := strings.TrimLeft(line, " \t>")
	for {
		t := strings.TrimLeft(rest, " \t>")
		if len(t) > 0 && (t[0] == '-' || t[0] == '+' || t[0] == '*') && (len(t) == 1 || t[1] == ' ' || t[1] == '\t') {
			rest = t[1:]
			continue
		}
		i := 0
		for i < len(t) && i < 10 && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		if i > 0 && i < len(t) && (t[i] == '.' || t[i] == ')') && (i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '\t') {
			rest = t[i+1:]
			continue
		}
		if i > 0 && i == len(t) {
			return true // "12" may become "12."
		}
		rest = t
		break
	}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return true
	}
	return strings.Trim(rest, rest[:1]) == "" && strings.ContainsAny(rest[:1], "#-=*_+|`~:")
}

// pendingHeaderRow reports whether s (ending with a newline) ends with a
// lone table header row still waiting for its delimiter row.
func pendingHeaderRow(s string) bool {
	if len(s) < 2 {
		return false
	}
	last := lineStart(s, len(s)-1)
	row := strings.TrimLeft(s[last:], " \t>")
	if !strings.HasPrefix(row, "|") {
		return false
	}
	if last == 0 {
		return true
	}
	prev := strings.TrimLeft(s[lineStart(s, last-1):last], " \t>")
	return !strings.HasPrefix(prev, "|")
}

// pendingInline returns the offset in line (the unfinished last line)
// from which the text is held back, or len(line).
func pendingInline(line string) int {
	cut := len(line)
	type run struct {
		c           byte
		pos         int
		open, close bool
	}
	var runs []run
scan:
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == '\\':
			if i+1 == len(line) {
				cut = min(cut, i)
			}
			i += 2
			continue
		case c == '`':
			j := i
			for j < len(line) && line[j] == '`' {
				j++
			}
			k := closingBackticks(line[j:], j-i)
			if k < 0 {
				cut = min(cut, i)
				break scan // everything after is inside the pending span
			}
			i = j + k + (j - i)
			continue
		case c == '*' || c == '_' || c == '~':
			j := i
			for j < len(line) && line[j] == c {
				j++
			}
			if j == len(line) {
				cut = min(cut, i) // a run at the very end: more is coming
				break scan
			}
			open, close := delimiterFlanking(c, lastRune(line[:i]), firstRune(line[j:]))
			runs = append(runs, run{c, i, open, close})
			i = j
			continue
		case c == '<':
			rest := line[i+1:]
			if !strings.Contains(rest, ">") && rest != "" && (isASCIILetter(rest[0]) || strings.IndexByte("/!?", rest[0]) >= 0) {
				cut = min(cut, i)
				break scan
			}
			if rest == "" {
				cut = min(cut, i)
				break scan
			}
		case c == '&':
			if partialEntity(line[i:]) {
				cut = min(cut, i)
				break scan
			}
		case c == '[' || c == '!' && i+1 < len(line) && line[i+1] == '[':
			if pendingLink(line[i:]) {
				cut = min(cut, i)
				break scan
			}
		}
		i++
	}
	// Match runs like CommonMark's delimiter stack, simplified: a closer
	// pairs with the nearest open opener of the same character.
	var stack []run
	for _, r := range runs {
		if r.pos >= cut {
			break
		}
		if r.close {
			matched := false
			for k := len(stack) - 1; k >= 0; k-- {
				if stack[k].c == r.c {
					stack = append(stack[:k], stack[k+1:]...)
					matched = true
					break
				}
			}
			if matched {
				continue
			}
		}
		if r.open {
			stack = append(stack, r)
		}
	}
	for _, r := range stack {
		cut = min(cut, r.pos)
	}
	return cut
}

// closingBackticks returns the offset in s of a backtick run of exactly n,
// or -1.
func closingBackticks(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}

// delimiterFlanking applies CommonMark's flanking rules (and the CJK
// pre-pass's adjustment) to a delimiter run.
func delimiterFlanking(c byte, before, after rune) (open, close bool) {
	if c == '*' {
		if cjkFixBefore(before, after) {
			before = ' '
		} else if cjkFixAfter(before, after) {
			after = '\\'
		}
	}
	bs, as := util.IsSpaceRune(before), util.IsSpaceRune(after)
	bp, ap := util.IsPunctRune(before), util.IsPunctRune(after)
	left := !as && (!ap || bs || bp)
	right := !bs && (!bp || as || ap)
	if c == '_' {
		return left && (!right || bp), right && (!left || ap)
	}
	return left, right
}

func lastRune(s string) rune {
	if s == "" {
		return '\n'
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func firstRune(s string) rune {
	if s == "" {
		return '\n'
	}
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// partialEntity reports whether s (the rest of the line) is the start of a
// character reference.
func partialEntity(s string) bool {
	if len(s) > 33 {
		return false
	}
	t := strings.TrimPrefix(s[1:], "#")
	for i := 0; i < len(t); i++ {
		if !util.IsAlphaNumeric(t[i]) {
			return false
		}
	}
	return true
}

// pendingLink reports whether s (the rest of the line, starting at "[" or
// "![") is a link or image still being written: no "]" yet, "]" just
// typed, or the destination not yet closed.
func pendingLink(s string) bool {
	s = strings.TrimPrefix(s, "!")
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return true
	}
	rest := s[end+1:]
	if rest == "" {
		return true
	}
	return rest[0] == '(' && !strings.Contains(rest, ")")
}
