package format

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Text from people and models made safe to show: it can neither close a
// fence, fake Markdown around it, hide behind invisible characters nor
// ping anyone.

// CodeBlock fences s so that it shows verbatim. Backtick runs are broken
// with zero-width spaces so that s cannot close the fence; controls and
// invisible format characters (bidi overrides that make a command read
// differently than it runs) show as U+FFFD. cut counts the runes past
// limit that were left out; a negative limit keeps them all.
func CodeBlock(s string, limit int) (block string, cut int) {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	var b strings.Builder
	b.WriteString("```\n")
	n := 0
	prevTick := false
	for _, r := range s {
		if n == limit {
			cut++
			continue
		}
		n++
		switch {
		case r == '\n' || r == '\t':
		case unicode.IsControl(r) || isHiddenFormat(r):
			r = utf8.RuneError
		}
		if r == '`' && prevTick {
			b.WriteString(zwsp)
		}
		prevTick = r == '`'
		b.WriteRune(r)
		if r == '@' || r == '<' {
			b.WriteString(zwsp) // "@everyone", "<!channel>", "<@U123>" no longer mention
		}
	}
	if strings.TrimSpace(s) == "" {
		b.WriteString("(no summary)")
	}
	b.WriteString("\n```")
	return b.String(), cut
}

// Squash collapses whitespace and drops controls and invisible format
// characters, keeping at most max runes, then "…".
func Squash(s string, max int) string {
	var b strings.Builder
	n, space := 0, false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if isHiddenFormat(r) {
			continue
		}
		if n == max {
			b.WriteString("…")
			break
		}
		if space {
			if n+1 == max { // the space would be the last rune kept
				b.WriteString("…")
				break
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// isHiddenFormat reports invisible format characters (Unicode Cf: bidi
// controls, zero-width spaces, tag characters), except the zero-width
// joiner that emoji sequences need.
func isHiddenFormat(r rune) bool {
	return r != '\u200d' && unicode.Is(unicode.Cf, r)
}

// Duration says d the way the messages do: "10 min".
func Duration(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	case d >= time.Second && d%time.Second == 0 && d < time.Minute:
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return d.Round(time.Second).String()
}
