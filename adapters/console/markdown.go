package console

import (
	"io"
	"slices"
	"strings"

	"github.com/parleybot/parley/bot/format"
	"golang.org/x/term"
)

// Markdown on a terminal: the model writes Markdown, and a terminal shows
// it rendered by bot/format's Terminal dialect (bold, italics, code,
// lists, links with their URL), with the SGR escape sequences it writes
// and no others: control characters in the model's text are dropped. The
// terminal wraps the lines. Output that is not a terminal (a pipe, a file)
// gets the text as written.
const (
	// partMin is how long a document grows before it is cut at the next
	// top-level paragraph, so that a long answer being written is not
	// rendered again and again from its start.
	partMin = 8 << 10
	// slowPart is how long a part grows before a stream's next block waits
	// for the part to grow by a quarter: each showing renders the part
	// again, from its start.
	slowPart = 2 << 10
)

// markdown renders Markdown for one console's terminal.
type markdown struct {
	colour bool // colours as well as bold, italics and underlines
}

// newMarkdown returns the renderer for out, or nil when out is not a
// terminal (or a dumb one, which takes no escape sequences): the text is
// then printed as written. NO_COLOR leaves the colours out. It asks the
// terminal nothing.
func newMarkdown(out io.Writer, getenv func(string) string) *markdown {
	f, ok := out.(interface{ Fd() uintptr })
	if !ok {
		return nil
	}
	if !term.IsTerminal(int(f.Fd())) || getenv("TERM") == "dumb" {
		return nil
	}
	return &markdown{colour: getenv("NO_COLOR") == ""}
}

// render returns src rendered for the terminal, as lines without the
// blank ones before and after. ok is false when nothing of it would show
// (a link reference definition, only spaces): the caller prints src as
// written instead.
func (m *markdown) render(src string) (lines []string, ok bool) {
	lines = strings.Split(format.Terminal(src, m.colour), "\n")
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
