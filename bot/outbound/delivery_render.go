package outbound

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// What a reply shows besides the answer itself.
const (
	moreMarker     = "…"             // under a streaming preview cut at SplitAt
	noAnswerText   = "_(no answer)_" // the final answer was empty
	surplusText    = "_(see above)_" // a continuation message the final answer no longer needs
	failedNotice   = "⚠️ I could not deliver the full answer."
	MaxStatusRunes = 200
)

// render returns what the first message shows while streaming: the text,
// cut to its first part past SplitAt (the rest arrives with the final
// answer), and the status line under it. "" when there is nothing to show.
func (d *Delivery) render(text, status string) string {
	// Trailing whitespace is invisible (platforms trim it): an edit that
	// only adds some would be a wasted call, or refused as "not modified".
	text = trimEnd(text)
	more := false
	if text != "" && d.splitAt > 0 && d.measure(text) > d.splitAt {
		text, more = d.parts(text)[0], true
	}
	return d.compose(text, more, status)
}

// compose joins a preview, the "more to come" marker and the status line,
// dropping the status and then the marker when the whole would not fit in
// one message.
func (d *Delivery) compose(text string, more bool, status string) string {
	join := func(more bool, status string) string {
		var b strings.Builder
		add := func(s string) {
			if s == "" {
				return
			}
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(s)
		}
		add(text)
		if more {
			add(moreMarker)
		}
		if status != "" {
			add("_" + status + "_")
		}
		return b.String()
	}
	out := join(more, status)
	if d.maxLen > 0 && d.measure(out) > d.maxLen {
		if out = join(more, ""); d.measure(out) > d.maxLen {
			out = text
		}
	}
	return out
}

// parts cuts a final answer into messages: one part up to SplitAt, else
// the injected splitter's parts. A part the splitter left too long for the
// platform is cut again, plainly, since a message the platform refuses
// would never be delivered.
func (d *Delivery) parts(text string) []string {
	text = trimEnd(text)
	if d.splitAt <= 0 || d.measure(text) <= d.splitAt {
		return []string{text}
	}
	var out []string
	for _, p := range d.cfg.Split(text, d.splitAt, d.measure) {
		switch {
		case isBlank(p):
		case d.maxLen > 0 && d.measure(p) > d.maxLen:
			out = append(out, cutLines(p, d.splitAt, d.measure)...)
		default:
			out = append(out, trimEnd(p))
		}
	}
	if len(out) == 0 {
		return cutLines(text, d.splitAt, d.measure)
	}
	return out
}

// cutLines cuts text into pieces that measure at most limit: at the last
// blank line of a piece when there is one in its second half, else at its
// last line end, space or rune boundary; the line breaks at a cut are
// dropped. It is the fallback splitter and knows nothing of Markdown.
func cutLines(text string, limit int, measure func(string) int) []string {
	var out []string
	for {
		text = strings.TrimLeft(text, "\n")
		if isBlank(text) {
			return out
		}
		if measure(text) <= limit {
			return append(out, text)
		}
		cut := FitPrefix(text, limit, measure)
		next := cut
		for _, sep := range []string{"\n\n", "\n", " "} {
			// A separator right after the prefix is as good as one in it.
			if i := strings.LastIndex(text[:min(len(text), cut+len(sep))], sep); i > 0 && i >= cut/2 {
				cut, next = i, i+len(sep) // the separator goes with neither piece
				break
			}
		}
		if piece := strings.TrimRight(text[:cut], " \n"); piece != "" {
			out = append(out, piece)
		}
		text = text[next:]
	}
}

// fitPrefix returns the length of the longest prefix of text, cut between
// runes, that measures at most limit (at least one rune, so a caller
// always makes progress). It searches, since measure need not be linear
// in bytes.
func FitPrefix(text string, limit int, measure func(string) int) int {
	lo, hi := 0, len(text) // text[:lo] fits, text[:hi] does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		for mid > lo && !utf8.RuneStart(text[mid]) {
			mid--
		}
		if mid == lo {
			break
		}
		if measure(text[:mid]) <= limit {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		_, lo = utf8.DecodeRuneInString(text)
	}
	return lo
}

// statusLine makes a progress status fit on one short line.
func statusLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > MaxStatusRunes {
		r := []rune(s)
		s = string(r[:MaxStatusRunes-1]) + "…"
	}
	return s
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

func trimEnd(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }

// joinParts is how the record's Text shows the parts the messages hold.
func joinParts(parts []string) string { return strings.Join(parts, "\n\n") }
