package format

import (
	"strings"
	"unicode/utf8"
)

// Terminal renders Markdown for an ANSI terminal (the terminal chat):
//
//   - **b** bold, *i* italic, ~~s~~ struck through, headings bold lines
//     (level 1 also underlined), `code` cyan;
//   - links: the label underlined, then " (url)" unless the label is the
//     URL (links a terminal should not follow show their label alone);
//   - code blocks and tables: each line indented by 4 spaces, cyan;
//   - quotes "│ " lines, lists "• " / "1. " lines, rules a line of "─",
//     images their description.
//
// Without colour (NO_COLOR), code is shown as written and only bold,
// italic, underline and strike-through are used. Lines are not wrapped:
// the terminal wraps them.
//
// The model's text never reaches the terminal as control characters: C0
// controls other than newline and tab, DEL and C1 controls (ESC and CSI
// among them) are dropped from text, code and URLs alike, so an answer
// cannot move the cursor, retitle the window or write the clipboard (OSC
// 52). The only escape sequences in the output are the dialect's own SGR
// sequences, ESC [ digits m, each attribute switched off in the same
// message it is switched on.
func Terminal(md string, colour bool) string {
	return renderMarkdown(md, terminalDialect{colour: colour})
}

// The SGR sequences Terminal writes: each attribute is set and reset by
// itself, so that ending one leaves the others as they are.
const (
	sgrBold, sgrBoldOff           = "\x1b[1m", "\x1b[22m"
	sgrItalic, sgrItalicOff       = "\x1b[3m", "\x1b[23m"
	sgrUnderline, sgrUnderlineOff = "\x1b[4m", "\x1b[24m"
	sgrStrike, sgrStrikeOff       = "\x1b[9m", "\x1b[29m"
	sgrCyan, sgrColourOff         = "\x1b[36m", "\x1b[39m"
)

type terminalDialect struct{ colour bool }

func (terminalDialect) lit(w *strings.Builder, s string)    { writeTerminalSafe(w, s) }
func (terminalDialect) punct(w *strings.Builder, c byte)    { writeTerminalSafe(w, string(c)) }
func (terminalDialect) entity(w *strings.Builder, s string) { writeTerminalSafe(w, s) }

// writeTerminalSafe writes s without what a terminal would act on rather
// than show: C0 controls except '\n' and '\t', DEL, and C1 controls
// (U+0080–U+009F, which some terminals take as ESC-sequences of one
// character: U+009B is CSI). Bytes that are not UTF-8 become U+FFFD, so
// that a lone 0x9B cannot act as CSI on a terminal that reads 8-bit
// controls either.
func writeTerminalSafe(w *strings.Builder, s string) {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if c >= 0x20 && c != 0x7f || c == '\n' || c == '\t' {
				continue
			}
			w.WriteString(s[start : i-1])
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			w.WriteString(s[start:i])
			w.WriteString("\uFFFD")
		case r >= 0x80 && r <= 0x9f:
			w.WriteString(s[start:i])
		default:
			i += n
			continue
		}
		i += n
		start = i
	}
	w.WriteString(s[start:])
}

// TerminalSafe returns s without the control characters [Terminal] drops
// from text: what may be written to a terminal as it is.
func TerminalSafe(s string) string {
	var b strings.Builder
	writeTerminalSafe(&b, s)
	return b.String()
}

// sgrWrap sets an attribute around inner. Whitespace alone is left as it
// is: a struck-through or underlined space shows.
func sgrWrap(on, off, inner string) string {
	if strings.TrimSpace(inner) == "" {
		return inner
	}
	return on + inner + off
}

func (terminalDialect) strong(inner string) string { return sgrWrap(sgrBold, sgrBoldOff, inner) }
func (terminalDialect) emph(inner string) string   { return sgrWrap(sgrItalic, sgrItalicOff, inner) }
func (terminalDialect) strike(inner string) string { return sgrWrap(sgrStrike, sgrStrikeOff, inner) }

func (d terminalDialect) codeSpan(w *strings.Builder, code string, _ *inlineCtx) {
	if !d.colour {
		d.lit(w, code)
		return
	}
	w.WriteString(sgrCyan)
	d.lit(w, code)
	w.WriteString(sgrColourOff)
}

// link underlines the label; linkFallback decides whether the URL follows
// it. A label shown without its URL (a relative or javascript: link) is
// not underlined: it leads nowhere.
func (d terminalDialect) link(w *strings.Builder, dest []byte, label, plain string, _ *inlineCtx) {
	url := normURL(dest)
	fb := linkFallback(plain, url)
	if plain == "" || label == "" {
		d.lit(w, fb)
		return
	}
	if fb == plain && plain != url {
		w.WriteString(label)
		return
	}
	w.WriteString(sgrWrap(sgrUnderline, sgrUnderlineOff, label))
	d.lit(w, strings.TrimPrefix(fb, plain))
}

// autoLink underlines the URL as written: it is its own label.
func (d terminalDialect) autoLink(w *strings.Builder, _, label string, _ *inlineCtx) {
	w.WriteString(sgrWrap(sgrUnderline, sgrUnderlineOff, TerminalSafe(label)))
}

func (terminalDialect) heading(level int, inner func(inlineCtx) string) []line {
	s := inner(inlineCtx{strong: 1, singleLine: true})
	if strings.TrimSpace(s) == "" {
		return nil
	}
	if level == 1 {
		// The whole line is underlined: a link's own underline would end
		// it early.
		s = strings.ReplaceAll(s, sgrUnderline, "")
		s = strings.ReplaceAll(s, sgrUnderlineOff, "")
		s = sgrUnderline + s + sgrUnderlineOff
	}
	return []line{{s: sgrBold + s + sgrBoldOff}}
}

// codeBlock indents each line by 4 spaces, coloured line by line so that
// nothing around the block (a list's indentation, a quote's bar) is.
func (d terminalDialect) codeBlock(_ string, code string) []line {
	ls := textLines(code)
	for i := range ls {
		ls[i].code = true
		s := TerminalSafe(ls[i].s)
		switch {
		case strings.TrimSpace(s) == "":
			ls[i].s = ""
		case d.colour:
			ls[i].s = "    " + sgrCyan + s + sgrColourOff
		default:
			ls[i].s = "    " + s
		}
	}
	return ls
}

// quote marks each line with a bar, as quotePrefix does with ">".
func (terminalDialect) quote(lines []line) []line {
	out := make([]line, len(lines))
	for i, l := range lines {
		if l.s == "" {
			l.s = "│"
		} else {
			l.s = "│ " + l.s
		}
		out[i] = l
	}
	return out
}

func (terminalDialect) rule() []line            { return []line{{s: ruleLine}} }
func (terminalDialect) bullet(depth int) string { return bullets(depth) }
func (terminalDialect) finish(s string) string  { return s }
