package format

import (
	"sort"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// A region is a multi-line construct that a cut may fall inside: a fenced
// code block or a GFM table. The splitter closes it at the end of one part
// and reopens it at the start of the next; the streaming prefix closes an
// open fence temporarily. Regions come from goldmark's tree, so fences in
// lists and quotes, and fence-like lines that are not fences, are handled
// by the real CommonMark rules rather than a line scanner's guess.
//
// Offsets, for a fence:
//
//	start        opener line start ("> ```go")
//	bodyStart    first content line start
//	bodyEnd      end of the last content line (start of the closer line)
//	end          end of the closer line (== bodyEnd without a closer)
//
// and for a table: header line start, first body row start, end of the
// last row, end (== bodyEnd).
type region struct {
	table                          bool
	start, bodyStart, bodyEnd, end int
	hasCloser                      bool

	// Fences.
	prefix string // container prefix for reopen/close lines ("> ", "   ")
	marker string // the opener's backtick or tilde run
	opener string // marker + info string as written

	// Tables: header and delimiter rows as written.
	header string

	// degraded is set by the splitter when the reopen line(s) alone leave
	// no room under the limit: tables then stop repeating their header,
	// fences reopen without their info string.
	degraded bool
}

// inside reports whether a cut at p lies within the region's body, so the
// parts on either side need a close / reopen.
func (r *region) inside(p int) bool { return p > r.bodyStart && p < r.bodyEnd }

// forbids reports whether a cut at p would split the opener, leave an empty
// construct behind, or split the closer.
func (r *region) forbids(p int) bool {
	if r.bodyStart == r.bodyEnd { // no body: atomic
		return p > r.start && p < r.end
	}
	return p > r.start && p <= r.bodyStart || p >= r.bodyEnd && p < r.end
}

// reopen is what the part starting at p must begin with.
func (r *region) reopen(src string, p int) string {
	if r.table {
		if r.degraded {
			return ""
		}
		return r.header
	}
	opener := r.opener
	if r.degraded {
		opener = r.marker
	}
	s := r.prefix + opener + "\n"
	if src[p-1] != '\n' { // mid-line: the rest of the line lacks its prefix
		s += r.prefix
	}
	return s
}

// close is what a part ending at p must end with.
func (r *region) close(src string, p int) string {
	if r.table {
		return ""
	}
	if p > 0 && src[p-1] == '\n' {
		return r.prefix + r.marker
	}
	return "\n" + r.prefix + r.marker
}

// findRegions lists the fences and tables of src, ordered by start.
func findRegions(src string) []region {
	if !strings.ContainsAny(src, "`~|") {
		return nil
	}
	// The tree is of the source with too deep nesting escaped (see
	// limitNesting); at maps its offsets back to src.
	b, root, esc := limitNesting([]byte(src))
	if root == nil {
		root = parseRaw(b)
	}
	at := func(p int) int { return srcOffset(esc, p) }
	var out []region
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			if r, ok := fenceRegion(src, n, at); ok {
				out = append(out, r)
			}
			return ast.WalkSkipChildren, nil
		case *east.Table:
			if r, ok := tableRegion(src, n, at); ok {
				out = append(out, r)
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

func lineStart(s string, p int) int { return strings.LastIndexByte(s[:p], '\n') + 1 }

func lineEnd(s string, p int) int {
	if i := strings.IndexByte(s[p:], '\n'); i >= 0 {
		return p + i + 1
	}
	return len(s)
}

func fenceRegion(src string, n *ast.FencedCodeBlock, at func(int) int) (region, bool) {
	pos := at(n.Pos())
	if pos < 0 || pos >= len(src) || (src[pos] != '`' && src[pos] != '~') {
		return region{}, false
	}
	r := region{start: lineStart(src, pos)}
	// Container prefix with list markers blanked: "- " → "  ", "> 1. " →
	// ">    ". Continuation lines of the same container look like that.
	pb := []byte(src[r.start:pos])
	for i, c := range pb {
		if c != '>' && c != ' ' && c != '\t' {
			pb[i] = ' '
		}
	}
	r.prefix = string(pb)
	m := pos
	for m < len(src) && src[m] == src[pos] {
		m++
	}
	r.marker = src[pos:m]
	openerEnd := lineEnd(src, pos)
	r.opener = strings.TrimRight(src[pos:openerEnd], " \t\r\n")
	r.bodyStart, r.bodyEnd = openerEnd, openerEnd
	if lines := n.Lines(); lines.Len() > 0 {
		last := lines.At(lines.Len() - 1)
		lastStart := at(last.Start)
		r.bodyEnd = lineEnd(src, min(lastStart, len(src)))
		if lastStart >= len(src) {
			r.bodyEnd = len(src)
		}
	}
	r.end = r.bodyEnd
	if r.bodyEnd < len(src) && isFenceCloser(src[r.bodyEnd:lineEnd(src, r.bodyEnd)], r.marker) {
		r.hasCloser = true
		r.end = lineEnd(src, r.bodyEnd)
	}
	return r, true
}

// isFenceCloser reports whether line (container markers included) closes a
// fence opened with marker.
func isFenceCloser(line, marker string) bool {
	line = strings.TrimLeft(line, " \t>")
	i := 0
	for i < len(line) && line[i] == marker[0] {
		i++
	}
	return i >= len(marker) && strings.TrimSpace(line[i:]) == ""
}

func tableRegion(src string, n *east.Table, at func(int) int) (region, bool) {
	pos := at(n.Pos())
	if pos < 0 || pos >= len(src) {
		return region{}, false
	}
	r := region{table: true, start: lineStart(src, pos)}
	delimEnd := lineEnd(src, lineEnd(src, r.start))
	r.header = src[r.start:delimEnd]
	if !strings.HasSuffix(r.header, "\n") {
		r.header += "\n"
	}
	r.bodyStart, r.bodyEnd = delimEnd, delimEnd
	first := true
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		row, ok := c.(*east.TableRow)
		if !ok {
			continue
		}
		p := at(row.Pos())
		if p < 0 || p >= len(src) {
			return region{}, false
		}
		if first {
			r.bodyStart = lineStart(src, p)
			first = false
		}
		r.bodyEnd = lineEnd(src, p)
	}
	if r.bodyStart < delimEnd || r.bodyEnd < r.bodyStart {
		return region{}, false
	}
	r.end = r.bodyEnd
	return r, true
}

// regionAt returns the region whose [start, end) contains p, if any.
func regionAt(rs []region, p int) *region {
	i := sort.Search(len(rs), func(i int) bool { return rs[i].start > p })
	if i > 0 && p < rs[i-1].end {
		return &rs[i-1]
	}
	return nil
}
