package format

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// Part is one piece of a split answer.
type Part struct {
	// Text is the Markdown to render and send: Prefix + Source + Suffix.
	Text string
	// Source is the slice of the input this part covers; the Sources of
	// all parts concatenate to the (UTF-8-sanitized) input.
	Source string
	// Prefix reopens a fence (its opener line, container prefix included)
	// or a table (its header and delimiter rows) cut by the previous part.
	Prefix string
	// Suffix closes a fence cut at the end of this part (or left open at
	// the end of the answer).
	Suffix string
}

// Split cuts the Markdown source md into parts whose rendering, as
// measured by measure, is at most limit. It is SplitParts without the
// bookkeeping.
//
// Typical measures: MeasureTelegram (visible UTF-16 units of the HTML),
// MeasureSlack, MeasureDiscord, or any func(md string) int.
func Split(md string, limit int, measure func(string) int) []string {
	parts := SplitParts(md, limit, measure)
	if parts == nil {
		return nil
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.Text
	}
	return out
}

// SplitParts cuts md into parts that each fit limit once rendered:
//
//   - The cut is chosen, among positions that keep the part within the
//     limit, by preference: a blank line between blocks, a line end, a
//     sentence end (". ", "! ", "? ", or CJK 。！？ with no space), a
//     space, and only then any grapheme-cluster boundary (uniseg). A cut
//     is taken from the last half of the longest fitting prefix, so parts
//     are not needlessly small.
//   - A cut never falls inside a grapheme cluster, so never inside a UTF-8
//     sequence, a surrogate pair once encoded as UTF-16, a ZWJ emoji
//     sequence, a flag or a base + combining marks.
//   - A cut inside a code fence closes it in the part (same marker) and
//     reopens it in the next with the same marker and info string; a cut
//     inside a table repeats the header rows in the next part. Fence
//     opener and closer lines and table headers are never cut.
//   - Each candidate is measured after rendering (measure(part.Text)), so
//     escaping, markup and rewritten constructs are accounted for.
//
// When a reopened table header (or a fence's info string) leaves no room
// for even one cluster, it is dropped from later parts of that table
// (fence). If a single cluster still does not fit — a limit smaller than
// a fence's opener line, a cluster of hundreds of combining marks — that
// minimal part is returned as is, over the limit: the splitter never cuts
// a cluster. Link reference definitions only apply within their own part.
func SplitParts(md string, limit int, measure func(string) int) []Part {
	md = strings.ToValidUTF8(md, "\uFFFD")
	if md == "" {
		return nil
	}
	s := newSplitter(md, limit, measure)
	var parts []Part
	start, prevStart := 0, 0
	for start < len(md) {
		if start > 0 && strings.TrimSpace(md[start:]) == "" && s.fits(prevStart, len(md)) {
			// Trailing whitespace renders as nothing: keep it with the
			// last part rather than sending an empty message.
			parts[len(parts)-1] = s.final(prevStart, len(md))
			break
		}
		end := s.cut(start)
		p := s.final(start, end)
		if p.Suffix != "" && p.Suffix != s.part(start, end).Suffix {
			// final's fence fix-up renders the same with our dialects,
			// but a caller's measure may count it: if the part no longer
			// fits, re-split it with a smaller budget.
			for budget := limit; budget > 1; {
				over := measure(p.Text) - limit
				if over <= 0 {
					break
				}
				budget -= over
				s.limit = max(budget, 1)
				end = s.cut(start)
				s.limit = limit
				p = s.final(start, end)
			}
		}
		parts = append(parts, p)
		prevStart, start = start, end
	}
	return parts
}

type splitter struct {
	md      string
	limit   int
	measure func(string) int
	regions []region
	cuts    []int // legal cut positions: grapheme boundaries not forbidden by a region
}

func newSplitter(md string, limit int, measure func(string) int) *splitter {
	s := &splitter{md: md, limit: limit, measure: measure, regions: findRegions(md)}
	state := -1
	pos := 0
	rest := md
	for len(rest) > 0 {
		var cluster string
		cluster, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		pos += len(cluster)
		if r := regionAt(s.regions, pos); r != nil && r.forbids(pos) {
			continue
		}
		s.cuts = append(s.cuts, pos)
	}
	return s
}

// part builds the part covering md[start:end], with the reopen/close lines
// the cut points need.
func (s *splitter) part(start, end int) Part {
	p := Part{Source: s.md[start:end]}
	if r := regionAt(s.regions, start); r != nil && r.inside(start) {
		p.Prefix = r.reopen(s.md, start)
	}
	if end < len(s.md) {
		if r := regionAt(s.regions, end); r != nil && r.inside(end) {
			p.Suffix = r.close(s.md, end)
		}
	}
	p.Text = p.Prefix + p.Source + p.Suffix
	return p
}

// final is part plus one fix-up: a part can still end inside an open
// fence, because the answer ends inside one or because a cut changed what
// the part's first lines mean (a "```" that was text inside an HTML block
// can open a fence when it starts a part). goldmark closes such a fence at
// the end of the document anyway, so adding the closing line changes
// nothing in the rendering, and every part is balanced.
func (s *splitter) final(start, end int) Part {
	p := s.part(start, end)
	if p.Suffix == "" {
		if r := openFenceAtEnd(p.Text); r != nil {
			p.Suffix = r.close(p.Text, len(p.Text))
			p.Text += p.Suffix
		}
	}
	return p
}

func (s *splitter) measureTo(start, end int) int { return s.measure(s.part(start, end).Text) }

func (s *splitter) fits(start, end int) bool { return s.measureTo(start, end) <= s.limit }

// cut returns the end of the part starting at start (< len(md)): len(md)
// if the rest fits.
//
// Rendering, not the source, is measured, so the longest fitting prefix is
// found by search. Rendered size grows roughly in proportion to the source,
// so the search extrapolates and interpolates instead of bisecting: about
// four or five measurements per part instead of fifteen. It is not exactly
// monotonic (closing a "**" shortens Slack output by two), which the
// verification of the preferred cut absorbs. It is long because the
// search, its fallbacks and the verification share one cut's bounds.
func (s *splitter) cut(start int) int {
	i0 := sort.SearchInts(s.cuts, start+1) // first legal cut after start
	last := len(s.cuts) - 1
	if i0 >= last {
		return len(s.md)
	}
	lo, mlo := -1, 0                   // largest index known to fit, and its measure
	bad, mbad := -1, 0                 // smallest index known not to fit
	g := min(last, i0+max(s.limit, 1)) // about one unit per cluster
	for bad < 0 {
		m := s.measureTo(start, s.cuts[g])
		if m > s.limit {
			bad, mbad = g, m
			break
		}
		lo, mlo = g, m
		if g == last {
			return len(s.md)
		}
		// Extrapolate assuming size grows linearly from start.
		grow := (g - i0 + 1) * (s.limit - mlo) / max(mlo, 1)
		g = min(last, g+max(grow, 1)+(g-i0)/16)
	}
	if lo < 0 {
		if bad != i0 {
			lo, mlo = i0, s.measureTo(start, s.cuts[i0])
		}
		if lo < 0 || mlo > s.limit {
			// Not even one cluster fits. If that is the reopened fence
			// or table header's fault, make the reopen smaller and retry;
			// otherwise the part is irreducible (see SplitParts).
			if r := regionAt(s.regions, start); r != nil && r.inside(start) && !r.degraded {
				r.degraded = true
				return s.cut(start)
			}
			return s.cuts[i0]
		}
	}
	// Narrow [lo, bad) by interpolation, bisecting when one side keeps
	// moving; stop once the gap is small next to the part (the preferred
	// cut is chosen from the last half anyway).
	lastSide, run := 0, 0 // which side moved last (+1 lo, -1 bad), how often in a row
	for bad-lo > 1 && s.cuts[bad]-s.cuts[lo] > (s.cuts[lo]-start)/32 {
		g := (lo + bad) / 2
		if run < 2 && mbad > mlo {
			g = lo + int(float64(bad-lo)*float64(s.limit-mlo)/float64(mbad-mlo))
		}
		g = min(max(g, lo+1), bad-1)
		side := -1
		if m := s.measureTo(start, s.cuts[g]); m <= s.limit {
			side, lo, mlo = 1, g, m
		} else {
			bad, mbad = g, m
		}
		if side == lastSide {
			run++
		} else {
			lastSide, run = side, 1
		}
	}
	hi := s.cuts[lo]
	// Prefer a better boundary in the last half of the fitting prefix.
	floor := start + (hi-start)/2
	type cand struct{ pos, class int }
	var cands []cand
	for k := lo - 1; k >= i0 && s.cuts[k] > floor; k-- {
		if c := s.class(s.cuts[k]); c > classGrapheme {
			cands = append(cands, cand{s.cuts[k], c})
		}
	}
	if c := s.class(hi); c > classGrapheme {
		cands = append(cands, cand{hi, c})
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].class != cands[j].class {
			return cands[i].class > cands[j].class
		}
		return cands[i].pos > cands[j].pos
	})
	for i, c := range cands {
		if i == 6 {
			break // measurement is not free; hi is known to fit
		}
		if c.pos == hi || s.fits(start, c.pos) {
			return c.pos
		}
	}
	return hi
}

// Cut classes, best last.
const (
	classGrapheme = iota + 1
	classSpace
	classSentence
	classRegionLine // a line end inside a fence or between table rows
	classLine
	classBlank
)

// class rates the cut position p (0 < p < len(md)).
func (s *splitter) class(p int) int {
	md := s.md
	if p >= len(md) {
		return classBlank
	}
	prev := md[p-1]
	spaceEnd := (prev == ' ' || prev == '\t') && md[p] != ' ' && md[p] != '\t' && md[p] != '\n'
	if r := regionAt(s.regions, p); r != nil && r.inside(p) {
		switch {
		case prev == '\n':
			return classRegionLine
		case spaceEnd:
			return classSpace
		}
		return classGrapheme
	}
	switch {
	case prev == '\n':
		i := p - 2
		for i >= 0 && (md[i] == ' ' || md[i] == '\t') {
			i--
		}
		if i < 0 || md[i] == '\n' {
			return classBlank
		}
		return classLine
	case isSentenceEnd(md, p):
		return classSentence
	case spaceEnd:
		return classSpace
	}
	return classGrapheme
}

// isSentenceEnd reports whether p follows a sentence end: ". ", "! ", "? "
// (the cut after the spaces), or CJK 。！？ which need no space.
func isSentenceEnd(md string, p int) bool {
	r, _ := utf8.DecodeLastRuneInString(md[:p])
	switch r {
	case '。', '！', '？', '．':
		return true
	}
	j := p
	for j > 0 && (md[j-1] == ' ' || md[j-1] == '\t') {
		j--
	}
	if j == p || j == 0 || md[p] == ' ' || md[p] == '\t' {
		return false
	}
	switch md[j-1] {
	case '.', '!', '?':
		return true
	}
	return false
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
