package format

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/util"
)

// Text segments reach the renderers exactly as written in the source:
// backslash escapes (`\*`) and character references (`&amp;`) are still in
// them (goldmark resolves them only in its own HTML writer). writeText
// resolves them with the same rules as goldmark's html.Writer.Write and hands
// each piece to the dialect, which decides how to escape it:
//
//   - lit:    ordinary text,
//   - punct:  a backslash-escaped ASCII punctuation character,
//   - entity: the characters a character reference stands for.
//
// `\ ` (the CJK pre-pass's escaped space) is dropped, as with goldmark's
// WithEscapedSpace writer option.
type textSink interface {
	lit(w *strings.Builder, s string)
	punct(w *strings.Builder, c byte)
	entity(w *strings.Builder, s string)
}

func writeText(w *strings.Builder, d textSink, src []byte) {
	start := 0
	flush := func(end int) {
		if start < end {
			d.lit(w, string(src[start:end]))
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '\\':
			if i+1 >= len(src) {
				continue
			}
			next := src[i+1]
			if util.IsPunct(next) {
				flush(i)
				d.punct(w, next)
				i++
				start = i + 1
			} else if next == ' ' {
				flush(i)
				i++
				start = i + 1
			}
		case '&':
			if s, n := entityAt(src[i:]); n > 0 {
				flush(i)
				d.entity(w, s)
				i += n - 1
				start = i + 1
			}
		case 0:
			flush(i)
			d.lit(w, "\uFFFD")
			start = i + 1
		}
	}
	flush(len(src))
}

// entityAt decodes a character reference at the start of b, returning the
// text and the number of bytes consumed (0 if b does not start with one).
// The limits match goldmark's writer (and CommonMark): up to 7 decimal or 6
// hexadecimal digits, known HTML5 names only.
func entityAt(b []byte) (string, int) {
	if len(b) < 3 || b[0] != '&' {
		return "", 0
	}
	if b[1] == '#' {
		i, base, maxDigits := 2, 10, 7
		if i < len(b) && (b[i] == 'x' || b[i] == 'X') {
			i, base, maxDigits = 3, 16, 6
		}
		j := i
		for j < len(b) && j-i <= maxDigits && isDigit(b[j], base) {
			j++
		}
		if j == i || j-i > maxDigits || j >= len(b) || b[j] != ';' {
			return "", 0
		}
		v, err := strconv.ParseUint(string(b[i:j]), base, 32)
		if err != nil {
			return "", 0
		}
		return string(util.ToValidRune(rune(v))), j + 1
	}
	j := 1
	for j < len(b) && j < 40 && util.IsAlphaNumeric(b[j]) {
		j++
	}
	if j == 1 || j >= len(b) || b[j] != ';' {
		return "", 0
	}
	e, ok := util.LookUpHTML5EntityByName(string(b[1:j]))
	if !ok {
		return "", 0
	}
	return strings.ToValidUTF8(string(e.Characters), "\uFFFD"), j + 1
}

func isDigit(c byte, base int) bool {
	if c >= '0' && c <= '9' {
		return true
	}
	return base == 16 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')
}

// escapeHTML writes s with &, < and > escaped: all that Telegram needs in
// text, and exactly what Slack asks for.
func escapeHTML(w *strings.Builder, s string) { escape(w, s, false) }

// escapeAttr escapes s for a double-quoted HTML attribute value.
func escapeAttr(s string) string {
	var w strings.Builder
	escape(&w, s, true)
	return w.String()
}

// escape writes s with &, < and > escaped, and " too when quotes is set.
func escape(w *strings.Builder, s string, quotes bool) {
	start := 0
	for i := 0; i < len(s); i++ {
		var rep string
		switch s[i] {
		case '&':
			rep = "&amp;"
		case '<':
			rep = "&lt;"
		case '>':
			rep = "&gt;"
		case '"':
			if !quotes {
				continue
			}
			rep = "&quot;"
		default:
			continue
		}
		w.WriteString(s[start:i])
		w.WriteString(rep)
		start = i + 1
	}
	w.WriteString(s[start:])
}

func htmlEscaped(s string) string {
	var w strings.Builder
	escapeHTML(&w, s)
	return w.String()
}

// normURL resolves escapes and references in a link destination and
// percent-encodes everything outside the URL-safe set (including space, `"`,
// `<`, `>`, `|`), so the result can be embedded in `<url|text>`, an href or
// `[text](url)` without breaking out of it.
func normURL(dest []byte) string {
	return strings.ToValidUTF8(string(util.URLEscape(dest, true)), "")
}

// urlScheme returns the lower-cased scheme of u, or "" for a relative URL.
func urlScheme(u string) string {
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 0:
			return strings.ToLower(u[:i])
		default:
			return ""
		}
	}
	return ""
}

// dangerousURL is goldmark's list of schemes never worth showing as a link
// (javascript:, vbscript:, file:, data: except images).
func dangerousURL(u string) bool {
	switch urlScheme(u) {
	case "javascript", "vbscript", "file", "data":
		return true
	}
	return false
}

// linkFallback is the plain text for a link a dialect cannot (or will not)
// make clickable: "label (url)" when the URL is worth showing, else the
// label alone.
func linkFallback(label, url string) string {
	showURL := url != "" && urlScheme(url) != "" && !dangerousURL(url)
	switch {
	case label == "" && showURL:
		return url
	case label == "" || !showURL || label == url:
		return label
	}
	return label + " (" + url + ")"
}

// sanitizeLang keeps the first word of a fence's info string when it looks
// like a language name. Anything else is dropped rather than escaped: it
// ends up in an HTML attribute (Telegram) or right after ``` (Discord).
func sanitizeLang(info []byte) string {
	if len(info) > 32 {
		return ""
	}
	for _, c := range info {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '_' || c == '+' || c == '-' || c == '.' || c == '#'
		if !ok {
			return ""
		}
	}
	return string(info)
}

// breakFences stops ``` inside code content from closing the block early on
// Slack and Discord, which have no longer fences: a zero-width space goes
// between the second and third backtick.
func breakFences(s string) string {
	if !strings.Contains(s, "```") {
		return s
	}
	return strings.ReplaceAll(s, "```", "``\u200b`")
}

// isBreakTag reports whether raw inline HTML is a <br>, which models use for
// line breaks (notably inside table cells).
func isBreakTag(raw string) bool {
	switch strings.ToLower(strings.Join(strings.Fields(raw), "")) {
	case "<br>", "<br/>":
		return true
	}
	return false
}

// runeWidth is the number of runes in s; used for list indentation, where
// each marker is a handful of narrow characters.
func runeWidth(s string) int { return utf8.RuneCountInString(s) }

// normURLRaw percent-encodes an autolink URL (autolinks have no escapes or
// references to resolve).
func normURLRaw(u string) string {
	return strings.ToValidUTF8(string(util.URLEscape([]byte(u), false)), "")
}
