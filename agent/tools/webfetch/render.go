package webfetch

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// render assembles the tool result: a header naming the page and where it
// was finally fetched from, then the text, cut to maxChars with visible
// notes, so the model knows when it is not seeing everything.
func render(p page, final *url.URL, maxChars int, bodyCut bool, maxBytes int64) string {
	text := strings.TrimSpace(p.text)
	if text == "" {
		text = "(the page has no readable text)"
	}
	text, total, cut := truncate(text, maxChars)

	var b strings.Builder
	b.Grow(len(text) + 256)
	fmt.Fprintf(&b, "# %s\nURL: %s\n\n", p.title, final)
	b.WriteString(text)
	if cut {
		fmt.Fprintf(&b, "\n\n[… truncated: showing the first %d of %d characters]", utf8.RuneCountInString(text), total)
	}
	if bodyCut {
		fmt.Fprintf(&b, "\n\n[… the response is larger than %s; only the first %s was read]", size(maxBytes), size(maxBytes))
	}
	return b.String()
}

// truncate cuts s to at most max characters, preferring to end at a line
// break (or else a space) in the last tenth so the cut does not split a
// word or a Markdown line. It returns the text, the original length in
// characters and whether it cut.
func truncate(s string, max int) (string, int, bool) {
	total := utf8.RuneCountInString(s)
	if total <= max {
		return s, total, false
	}
	// Byte offset of the max-th character.
	end := len(s)
	for i := range s {
		if max == 0 {
			end = i
			break
		}
		max--
	}
	head := s[:end]
	floor := len(head) - len(head)/10
	if i := strings.LastIndexByte(head, '\n'); i >= floor {
		head = head[:i]
	} else if i := strings.LastIndexByte(head, ' '); i >= floor {
		head = head[:i]
	}
	return strings.TrimRight(head, " \t\n"), total, true
}

// size formats a byte count the way the limit was most likely written.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
