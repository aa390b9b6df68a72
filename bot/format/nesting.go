package format

import (
	"sort"

	"github.com/yuin/goldmark/ast"
)

// Bounding the parser's work on adversarial nesting.
//
// goldmark's cost grows with nesting: every container (list item,
// blockquote) opened on a line is checked again for each later one, and
// the renderer re-indents a list's lines once per enclosing level, so one
// line of "- " × 32,000 or ">" × 64,000 takes seconds; every "](" whose
// "(" is never closed makes the link parser scan to the end of the line,
// so "[a](" × 16,000 does too. Model output is untrusted (it can quote
// anything a person wrote) and Split renders each answer many times, so
// before parsing, limitNesting turns the excess into literal text with a
// backslash escape, which goldmark shows as the character itself:
//
//   - a list marker ("-", "+", "*", "1." / "1)") or ">" at the start of a
//     line that would open a container deeper than maxNesting (16) levels
//     is escaped, and the rest of that line is a paragraph's text. The
//     depth is over-estimated without parsing: one level per marker in
//     the line's prefix plus one per two columns of indentation other
//     than the blanks a marker takes (a list item is continued by at
//     least two). So a list indented by 4 spaces a level stops at 8
//     levels, and deeply indented code may count as deep until the tree
//     shows it is code (below). A line that is a thematic break from a
//     marker on ("- - - -") stays one. No platform shows more than a few
//     levels anyway; 16 is far beyond what an answer uses, and bounds
//     goldmark's and the renderer's work per line by a constant.
//   - within one paragraph, after maxLongLinkOpeners (16) "](" whose
//     destination scan would run more than longLinkScan (256) bytes (no
//     matching ")" near), every further such "](" becomes "]\(". Real
//     links close their "(" within a URL's length.
//
// Escapes that the escaped document's tree places in code or raw HTML,
// where a backslash would show, are dropped again (a code line is never
// parsed for containers or links, so they cost nothing there), and the
// source is parsed with the remaining ones. Ordinary Markdown never
// reaches either limit, is not copied and parses exactly as written.
// findRegions (Split) parses the same escaped source and maps offsets back
// with srcOffset. BenchmarkDeepNesting measures the inputs above: from
// 0.3–10 s per render or Split of 64K characters to a few ms per render.
const (
	maxNesting         = 16
	maxLongLinkOpeners = 16
	longLinkScan       = 256
)

// nestEscape is one backslash to insert before src[at]; link tells a
// "](" escape from a container marker's.
type nestEscape struct {
	at   int
	link bool
}

// limitNesting returns src with the escapes described above, the tree of
// the result when it parsed it (nil when src needed no escape) and the
// escapes it kept, for srcOffset.
func limitNesting(src []byte) ([]byte, ast.Node, []nestEscape) {
	esc := nestingEscapes(src)
	if len(esc) == 0 {
		return src, nil, nil
	}
	out := insertBackslashes(src, esc)
	root := parseRaw(out)
	prot := protectedRanges(root)
	keep := esc[:0:0]
	for k, e := range esc {
		if !prot.contains(e.at+k, e.link) { // the k-th backslash lands at e.at+k
			keep = append(keep, e)
		}
	}
	if len(keep) == len(esc) {
		return out, root, esc
	}
	out = insertBackslashes(src, keep)
	return out, parseRaw(out), keep
}

// srcOffset maps an offset in limitNesting's result back to its source:
// an inserted backslash maps to the character it escapes.
func srcOffset(esc []nestEscape, p int) int {
	k := sort.Search(len(esc), func(k int) bool { return esc[k].at+k >= p })
	return p - k
}

func insertBackslashes(src []byte, esc []nestEscape) []byte {
	out := make([]byte, 0, len(src)+len(esc))
	prev := 0
	for _, e := range esc {
		out = append(out, src[prev:e.at]...)
		out = append(out, '\\')
		prev = e.at
	}
	return append(out, src[prev:]...)
}

// nestingEscapes finds, in one pass over src, where limitNesting escapes
// (ascending).
func nestingEscapes(src []byte) []nestEscape {
	var esc []nestEscape
	para := 0 // start of the current run of non-blank lines
	for start := 0; start < len(src); {
		end := start
		for end < len(src) && src[end] != '\n' {
			end++
		}
		blank := true
		for _, c := range src[start:end] {
			if c != ' ' && c != '\t' {
				blank = false
				break
			}
		}
		if blank {
			esc = appendLinkEscapes(esc, src, para, start)
			para = end + 1
		} else if at := deepMarker(src[start:end]); at >= 0 {
			esc = append(esc, nestEscape{at: start + at})
		}
		start = end + 1
	}
	esc = appendLinkEscapes(esc, src, para, len(src))
	sort.Slice(esc, func(i, j int) bool { return esc[i].at < esc[j].at })
	return esc
}

// deepMarker returns the offset in line of the first container marker
// whose over-estimated depth exceeds maxNesting, or -1.
func deepMarker(line []byte) int {
	col, ws, markers := 0, 0, 0
	free := 0       // columns after a marker that belong to it: 1 after ">", up to 4 after a list marker
	var seen [2]int // '-' and '*' markers passed, for thematic breaks
	breakFrom := [2]int{-1, -1}
	for i := 0; i < len(line); {
		switch c := line[i]; c {
		case ' ', '\t':
			w := 1
			if c == '\t' {
				w = 4 - col%4
			}
			f := min(w, free)
			col, ws, free, i = col+w, ws+w-f, free-f, i+1
			continue
		case '>':
			markers++
			if markers+ws/2 > maxNesting {
				return i
			}
			col, free, i = col+1, 1, i+1
			continue
		case '-', '+', '*':
			if i+1 < len(line) && line[i+1] != ' ' && line[i+1] != '\t' {
				return -1
			}
			if c != '+' {
				// "- - - x" nests lists, but "- - -" is a rule: so is the
				// rest of a line from a marker on when it is only that
				// character (three or more) and blanks.
				k := 0
				if c == '*' {
					k = 1
				}
				if breakFrom[k] < 0 {
					breakFrom[k] = thematicTail(line, c)
				}
				if i >= breakFrom[k] && countByte(line, c)-seen[k] >= 3 {
					return -1
				}
				seen[k]++
			}
			markers++
			if markers+ws/2 > maxNesting {
				return i
			}
			col, free, i = col+1, 4, i+1
			continue
		}
		j := i
		for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		if j == i || j == len(line) || line[j] != '.' && line[j] != ')' ||
			j+1 < len(line) && line[j+1] != ' ' && line[j+1] != '\t' {
			return -1
		}
		markers++
		if markers+ws/2 > maxNesting {
			return j // "1\." is text
		}
		col, free, i = col+j+1-i, 4, j+1
	}
	return -1
}

// thematicTail returns the offset from which line holds only c and
// blanks.
func thematicTail(line []byte, c byte) int {
	i := len(line)
	for i > 0 && (line[i-1] == c || line[i-1] == ' ' || line[i-1] == '\t') {
		i--
	}
	return i
}

func countByte(b []byte, c byte) int {
	n := 0
	for _, x := range b {
		if x == c {
			n++
		}
	}
	return n
}

// appendLinkEscapes adds the "](" escapes for the paragraph src[start:end].
// A link destination scan starting after "(" runs to its matching ")" (or
// stops earlier, at a blank), so the distance to the match, found with a
// stack, bounds its cost; an unmatched one may run to the paragraph's end.
func appendLinkEscapes(esc []nestEscape, src []byte, start, end int) []nestEscape {
	var open, long []int
	label := false // a "[" seen: only then can "](" start a link
	for i := start; i < end; i++ {
		switch src[i] {
		case '\\':
			if i+1 < end && isASCIIPunct(src[i+1]) {
				i++
			}
		case '[':
			label = true
		case '(':
			if label && src[i-1] == ']' {
				open = append(open, i)
			} else {
				open = append(open, -1)
			}
		case ')':
			if n := len(open); n > 0 {
				if p := open[n-1]; p >= 0 && i-p > longLinkScan {
					long = append(long, p)
				}
				open = open[:n-1]
			}
		}
	}
	for _, p := range open {
		if p >= 0 && end-p > longLinkScan {
			long = append(long, p)
		}
	}
	if len(long) <= maxLongLinkOpeners {
		return esc
	}
	sort.Ints(long)
	for _, p := range long[maxLongLinkOpeners:] {
		esc = append(esc, nestEscape{at: p, link: true})
	}
	return esc
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// ranges are sorted, disjoint source intervals where a backslash would
// show: code and raw HTML blocks; and, for "](" escapes only, code spans
// and inline raw HTML (a container marker's escape is in a line's prefix,
// where removing it would change the blocks).
type ranges struct{ blocks, inline [][2]int }

func (r ranges) contains(p int, link bool) bool {
	in := func(rs [][2]int) bool {
		k := sort.Search(len(rs), func(i int) bool { return rs[i][0] > p })
		return k > 0 && p < rs[k-1][1]
	}
	return in(r.blocks) || link && in(r.inline)
}

func protectedRanges(root ast.Node) ranges {
	var r ranges
	add := func(rs *[][2]int, start, stop int) {
		if start < stop {
			*rs = append(*rs, [2]int{start, stop})
		}
	}
	addLines := func(n ast.Node) {
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			s := lines.At(i)
			add(&r.blocks, s.Start, s.Stop)
		}
	}
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.CodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					add(&r.inline, t.Segment.Start, t.Segment.Stop)
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			addLines(n)
		case *ast.HTMLBlock:
			addLines(n)
			if n.HasClosure() {
				add(&r.blocks, n.ClosureLine.Start, n.ClosureLine.Stop)
			}
		case *ast.RawHTML:
			for i := 0; i < n.Segments.Len(); i++ {
				s := n.Segments.At(i)
				add(&r.inline, s.Start, s.Stop)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, rs := range []*[][2]int{&r.blocks, &r.inline} {
		sort.Slice(*rs, func(i, j int) bool { return (*rs)[i][0] < (*rs)[j][0] })
	}
	return r
}
