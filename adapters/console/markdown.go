package console

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/glamour/styles"
	"github.com/muesli/termenv"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"golang.org/x/term"
)

// Markdown on a terminal: the model writes Markdown, and a terminal shows
// it rendered (bold, code blocks, lists, links) by glamour, word-wrapped to
// its width. Output that is not a terminal (a pipe, a file) gets the text
// as written.
const (
	// renderMax bounds the Markdown rendered at once (glamour takes 1 to
	// 5 ms per KiB, up to 20 for thousands of tiny blocks): a longer
	// stretch without a place to cut it prints as written.
	renderMax = 32 << 10
	// maxWord and maxDepth bound what costs glamour more than linear
	// time: a word (no spaces) of n characters takes n² steps to wrap, and
	// each level of nested lists and quotes multiplies the work. A text
	// beyond them (a long URL, a minified line outside a code block, 500
	// Chinese characters without a space) prints as written, as does text
	// that is not UTF-8, slower still.
	maxWord  = 500
	maxDepth = 8
	// partMin is how long a document grows before it is cut at the next
	// top-level paragraph, so that a long answer being written is not
	// rendered again and again from its start.
	partMin = 8 << 10
	// slowPart is how long a part grows before a stream's next block waits
	// for the part to grow by a quarter: each showing renders the part
	// again, from its start.
	slowPart = 2 << 10
	// defaultWidth is the wrap when the terminal does not tell its width.
	defaultWidth = 80
	minWidth     = 20
)

// markdown renders Markdown for one console's terminal. Its renderer is
// built on first use (and again when the terminal's width changed); it is
// used under the screen's lock only.
type markdown struct {
	size   func() int // the terminal's columns now; 0 when unknown
	getenv func(string) string
	limit  int // the most rendered at once: renderMax

	r      *glamour.TermRenderer
	rWidth int
	md     goldmark.Markdown // parses for prepare
}

// newMarkdown returns the renderer for out, or nil when out is not a
// terminal (or a dumb one, which takes no escape sequences): the text is
// then printed as written. It asks the terminal nothing.
func newMarkdown(out io.Writer, getenv func(string) string) *markdown {
	f, ok := out.(interface{ Fd() uintptr })
	if !ok {
		return nil
	}
	fd := int(f.Fd())
	if !term.IsTerminal(fd) || getenv("TERM") == "dumb" {
		return nil
	}
	return &markdown{getenv: getenv, limit: renderMax, size: func() int {
		w, _, err := term.GetSize(fd)
		if err != nil {
			return 0
		}
		return w
	}}
}

// width is the wrap for a document started now.
func (m *markdown) width() int {
	w := m.size()
	if w <= 0 {
		return defaultWidth
	}
	return max(w, minWidth)
}

// render returns src rendered for a terminal width columns wide, as lines
// without the blank ones before and after. ok is false when it cannot be
// rendered (too long, the renderer failed, or nothing of it would show):
// the caller prints src as written instead.
func (m *markdown) render(src string, width int) (lines []string, ok bool) {
	if len(src) > m.limit || costly(src) {
		return nil, false
	}
	defer func() {
		if recover() != nil {
			m.r, m.md = nil, nil // built anew for the next text
			lines, ok = nil, false
		}
	}()
	if m.r == nil || m.rWidth != width {
		r, err := glamour.NewTermRenderer(m.options(width)...)
		if err != nil {
			return nil, false
		}
		m.r, m.rWidth = r, width
	}
	src, ok = m.prepare(src)
	if !ok {
		return nil, false
	}
	out, err := m.r.Render(src)
	if err != nil {
		return nil, false
	}
	lines = strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	first := slices.IndexFunc(lines, visible)
	if first < 0 {
		return nil, false
	}
	last := len(lines) - 1
	for !visible(lines[last]) {
		last--
	}
	return lines[first : last+1], true
}

// format is src as a terminal shows it: rendered, or as written when it
// cannot be.
func (m *markdown) format(src string, width int) string {
	if lines, ok := m.render(src, width); ok {
		return strings.Join(lines, "\n")
	}
	return src
}

// options choose the style without asking the terminal: glamour's
// "auto" asks it for its background colour, on the terminal the chat
// reads its lines from, and the answer could arrive as typed text.
// GLAMOUR_STYLE names one of glamour's styles; else COLORFGBG, which some
// terminals set, tells a dark background from a light one; else the style
// is one that reads on both (the terminal's own text colour, code without
// syntax colours). NO_COLOR keeps bold, italics and underlines but no
// colours.
func (m *markdown) options(width int) []glamour.TermRendererOption {
	style := styles.DarkStyleConfig
	style.Document.Color = nil
	style.CodeBlock.Chroma = nil
	if st, ok := styles.DefaultStyles[m.getenv("GLAMOUR_STYLE")]; ok {
		style = *st
	} else if dark, ok := darkBackground(m.getenv("COLORFGBG")); ok {
		style = styles.LightStyleConfig
		if dark {
			style = styles.DarkStyleConfig
		}
	}
	profile := termenv.ANSI256
	if m.getenv("NO_COLOR") != "" {
		profile = termenv.Ascii
	}
	return []glamour.TermRendererOption{
		glamour.WithStyles(style),
		glamour.WithWordWrap(width),
		glamour.WithColorProfile(profile),
	}
}

// darkBackground reads COLORFGBG ("15;0": white on black); ok is false
// when it says nothing.
func darkBackground(colorfgbg string) (dark, ok bool) {
	i := strings.LastIndexByte(colorfgbg, ';')
	if i < 0 {
		return false, false
	}
	bg, err := strconv.Atoi(colorfgbg[i+1:])
	if err != nil || bg < 0 || bg > 15 {
		return false, false
	}
	return bg != 7 && bg < 9, true
}

// prepare returns src for glamour, with its raw HTML escaped (glamour
// drops it: an answer that speaks of <br> or Vec<String> outside code
// keeps its words); ok is false when src is beyond maxWord or maxDepth.
func (m *markdown) prepare(src string) (_ string, ok bool) {
	if m.md == nil {
		m.md = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList),
			goldmark.WithParserOptions(parser.WithAutoHeadingID()))
	}
	b := []byte(src)
	var at []int // the offsets of the '<' to escape
	mark := func(s text.Segment) {
		for i := s.Start; i < s.Stop && i < len(b); i++ {
			if b[i] == '<' {
				at = append(at, i)
			}
		}
	}
	depth := 0
	ok = true
	ast.Walk(m.md.Parser().Parse(text.NewReader(b)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if k := n.Kind(); k == ast.KindBlockquote || k == ast.KindList {
			if !entering {
				depth--
				return ast.WalkContinue, nil
			}
			if depth++; depth > maxDepth {
				ok = false
				return ast.WalkStop, nil
			}
		}
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.HTMLBlock:
			for i := range n.Lines().Len() {
				mark(n.Lines().At(i))
			}
			if n.HasClosure() {
				mark(n.ClosureLine)
			}
		case *ast.RawHTML:
			for i := range n.Segments.Len() {
				mark(n.Segments.At(i))
			}
		}
		return ast.WalkContinue, nil
	})
	if !ok {
		return "", false
	}
	if len(at) == 0 {
		return src, true
	}
	slices.Sort(at)
	at = slices.Compact(at)
	var out strings.Builder
	out.Grow(len(src) + len(at))
	prev := 0
	for _, i := range at {
		out.WriteString(src[prev:i])
		out.WriteByte('\\')
		prev = i
	}
	out.WriteString(src[prev:])
	return out.String(), true
}

// costly reports whether src is not UTF-8, or has, outside fenced code
// (which is not wrapped), a word longer than maxWord or a line that looks
// nested deeper than maxDepth: what glamour takes more than linear time
// over.
// Found before parsing, since goldmark too takes quadratic time over deep
// nesting; prepare checks the nesting exactly.
func costly(src string) bool {
	if !utf8.ValidString(src) {
		return true
	}
	fence := ""
	for line := range strings.Lines(src) {
		in := fence != ""
		if fence = fenceAfter(fence, line); in || fence != "" {
			continue
		}
		if lineDepth(line) > maxDepth {
			return true
		}
		for w := range strings.FieldsSeq(line) {
			if len(w) > maxWord && utf8.RuneCountInString(w) > maxWord {
				return true
			}
		}
	}
	return false
}

// lineDepth is how deep a line looks nested: the quote and list marks it
// starts with ("> - 1. x": 3), or its indentation, 4 columns a level.
func lineDepth(line string) int {
	indent := 0
	for _, c := range line {
		if c == ' ' {
			indent++
		} else if c == '\t' {
			indent += 4
		} else {
			break
		}
	}
	marks := 0
	for {
		line = strings.TrimLeft(line, " \t")
		if strings.HasPrefix(line, ">") {
			marks, line = marks+1, line[1:]
			continue
		}
		i := 0
		for i < len(line) && i < 9 && line[i] >= '0' && line[i] <= '9' {
			i++
		}
		switch {
		case i == 0 && len(line) >= 2 && strings.IndexByte("-*+", line[0]) >= 0 && (line[1] == ' ' || line[1] == '\t'):
			marks, line = marks+1, line[2:]
		case i > 0 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && (line[i+1] == ' ' || line[i+1] == '\t'):
			marks, line = marks+1, line[i+2:]
		default:
			return max(marks, indent/4)
		}
	}
}

// visible reports whether a rendered line shows anything: not only
// spaces and escape sequences.
func visible(line string) bool {
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == 0x1b:
			i = skipEscape(line, i)
		case c != ' ' && c != '\t':
			return true
		}
	}
	return false
}

// skipEscape returns the offset of the last byte of the escape sequence
// at s[i].
func skipEscape(s string, i int) int {
	if i+1 < len(s) && s[i+1] == '[' { // CSI: parameters, then a final byte
		for j := i + 2; j < len(s); j++ {
			if s[j] >= 0x40 && s[j] <= 0x7e {
				return j
			}
		}
		return len(s) - 1
	}
	return min(i+1, len(s)-1)
}

// plainText is a rendered line without its escape sequences: what it
// shows.
func plainText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			i = skipEscape(s, i)
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// A document's cuts: where it can be rendered up to before the rest is
// written, and where it can start over as a new document.

// cut is a place where a block starts after a blank line, outside fenced
// code: what comes before it is whole blocks.
type cut struct {
	at int
	// fresh: the block is a top-level paragraph or heading or fence (its
	// line starts at the margin with no list, quote or table mark), so
	// nothing before it continues into it, and a new document can start
	// there.
	fresh bool
}

// cuts lists the cuts in src after from, which is outside fenced code.
func cuts(src string, from int) []cut {
	var out []cut
	fence := ""    // the open fence's marker; "" outside
	blank := false // the line before was blank
	for i := from; i < len(src); {
		end := strings.IndexByte(src[i:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += i
		}
		line := src[i:end]
		isBlank := strings.TrimSpace(line) == ""
		if fence == "" && blank && !isBlank && i > from {
			out = append(out, cut{at: i, fresh: !strings.ContainsAny(line[:1], " \t-*+>|0123456789")})
		}
		fence = fenceAfter(fence, line)
		blank = isBlank
		i = end + 1
	}
	return out
}

// fenceAfter is the fence open after line, given the one open before it
// (its marker: ``` or ~~~, or longer; "" for none). A fence's
// indentation is not checked: at worst a cut comes later.
func fenceAfter(fence, line string) string {
	line = strings.TrimLeft(line, " \t")
	if !strings.HasPrefix(line, "```") && !strings.HasPrefix(line, "~~~") {
		return fence
	}
	n := 3
	for n < len(line) && line[n] == line[0] {
		n++
	}
	switch {
	case fence == "":
		return line[:n]
	case line[0] == fence[0] && n >= len(fence) && strings.TrimSpace(line[n:]) == "":
		return ""
	}
	return fence
}
