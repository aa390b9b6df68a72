package format

import (
	"sort"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"
)

// CommonMark decides whether a `*` run can open or close emphasis from the
// characters on either side ("flanking"). A run with punctuation on its
// inner side and a letter on its outer side can only act the other way
// round, which is right for English but wrong for CJK text, where words are
// not separated by spaces: `**注意：**请看` and `これは**「重要」**です` stay
// literal (`这是**重要**的` works, letters on both sides).
//
// The pre-pass inserts an escaped space `\ ` on the outer side of such a
// run. With goldmark's escaped-space option the parser sees whitespace there
// (so the run becomes a proper opener) or a backslash (ASCII punctuation, so
// the run becomes a proper closer), and every dialect writes `\ ` as
// nothing. Two patterns are fixed, and only when a CJK character is
// involved so English text keeps CommonMark's behaviour:
//
//	letter **「…   opening bracket/quote inside, letter outside → `\ ` before
//	…：** letter   closing/other punctuation inside, letter outside → `\ ` after
//
// Telling openers from closers by the kind of punctuation (Ps/Pi vs
// Pe/Pf/Po) keeps `「**重要**」` working, where the same letter/punctuation
// shapes occur the other way round. Code spans, code blocks and raw HTML are
// never edited (see dropProtected).

// cjkCandidate is one insertion point found by the lexical scan. run is the
// offset of the delimiter run it belongs to, used to skip runs inside code.
type cjkCandidate struct {
	at, run int
}

// cjkCandidates scans src for `*` runs that need an escaped space.
func cjkCandidates(src []byte) []cjkCandidate {
	var out []cjkCandidate
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == '\\' && i+1 < len(src) && util.IsPunct(src[i+1]) {
			i++ // an escaped character is never a delimiter
			continue
		}
		if c != '*' {
			continue
		}
		j := i
		for j < len(src) && src[j] == '*' {
			j++
		}
		before, after := runeBefore(src, i), runeAfter(src, j)
		switch {
		case cjkFixBefore(before, after):
			out = append(out, cjkCandidate{at: i, run: i})
		case cjkFixAfter(before, after):
			out = append(out, cjkCandidate{at: j, run: i})
		}
		i = j - 1
	}
	return out
}

// cjkFixBefore reports whether a delimiter run between before and after is
// meant to open emphasis but cannot because a letter precedes it.
func cjkFixBefore(before, after rune) bool {
	return isWordRune(before) && unicode.In(after, unicode.Ps, unicode.Pi) &&
		(isCJK(before) || isCJK(after))
}

// cjkFixAfter reports whether a delimiter run between before and after is
// meant to close emphasis but cannot because a letter follows it.
func cjkFixAfter(before, after rune) bool {
	return unicode.In(before, unicode.Pe, unicode.Pf, unicode.Po) && isWordRune(after) &&
		(isCJK(before) || isCJK(after))
}

// isWordRune is CommonMark's "neither whitespace nor punctuation", using
// goldmark's own classification so our decisions match the parser's.
func isWordRune(r rune) bool {
	return !util.IsSpaceRune(r) && !util.IsPunctRune(r)
}

// isCJK reports Han, kana, Hangul, Bopomofo and the CJK punctuation and
// full-width blocks.
func isCJK(r rune) bool {
	switch {
	case r < 0x2E80:
		return false
	case r >= 0x2E80 && r <= 0x2FDF, // radicals
		r >= 0x3000 && r <= 0x303F, // CJK symbols and punctuation
		r >= 0x3040 && r <= 0x30FF, // kana (incl. ー)
		r >= 0x3100 && r <= 0x31FF, // Bopomofo, Hangul compatibility jamo, kana ext.
		r >= 0xFE30 && r <= 0xFE4F, // CJK compatibility forms
		r >= 0xFF00 && r <= 0xFFEF: // half-width and full-width forms
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hangul, unicode.Hiragana, unicode.Katakana, unicode.Bopomofo)
}

// runeBefore returns the rune ending at src[i], or '\n' at the start (the
// parser treats the start of a line as whitespace).
func runeBefore(src []byte, i int) rune {
	if i <= 0 {
		return '\n'
	}
	r, _ := utf8.DecodeLastRune(src[:i])
	return r
}

// runeAfter returns the rune starting at src[j], or '\n' at the end.
func runeAfter(src []byte, j int) rune {
	if j >= len(src) {
		return '\n'
	}
	r, _ := utf8.DecodeRune(src[j:])
	return r
}

// dropProtected removes candidates whose delimiter run lies inside code or
// raw HTML, where `\ ` would be visible.
func dropProtected(root ast.Node, src []byte, cands []cjkCandidate) []int {
	var prot [][2]int
	add := func(start, stop int) {
		if start < stop {
			prot = append(prot, [2]int{start, stop})
		}
	}
	addLines := func(n ast.Node) {
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			s := lines.At(i)
			add(s.Start, s.Stop)
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
					add(t.Segment.Start, t.Segment.Stop)
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock:
			addLines(n)
			if n.Info != nil {
				add(n.Info.Segment.Start, n.Info.Segment.Stop)
			}
		case *ast.CodeBlock:
			addLines(n)
		case *ast.HTMLBlock:
			addLines(n)
			if n.HasClosure() {
				add(n.ClosureLine.Start, n.ClosureLine.Stop)
			}
		case *ast.RawHTML:
			for i := 0; i < n.Segments.Len(); i++ {
				s := n.Segments.At(i)
				add(s.Start, s.Stop)
			}
		}
		return ast.WalkContinue, nil
	})
	sort.Slice(prot, func(i, j int) bool { return prot[i][0] < prot[j][0] })
	var keep []int
	for _, c := range cands {
		k := sort.Search(len(prot), func(i int) bool { return prot[i][0] > c.run })
		// The intervals come from disjoint nodes, so only the one starting
		// last at or before the run can contain it.
		if k == 0 || c.run >= prot[k-1][1] {
			keep = append(keep, c.at)
		}
	}
	return keep
}

// insertEscapedSpaces returns src with `\ ` inserted at each (ascending)
// offset in at.
func insertEscapedSpaces(src []byte, at []int) []byte {
	out := make([]byte, 0, len(src)+2*len(at))
	prev := 0
	for _, p := range at {
		out = append(out, src[prev:p]...)
		out = append(out, '\\', ' ')
		prev = p
	}
	return append(out, src[prev:]...)
}
