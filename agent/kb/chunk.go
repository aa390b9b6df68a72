// Package kb is Parley's knowledge base: the team's documents, cut into
// passages that retrieval finds by exact words and by meaning, and that the
// model cites by source and line range.
package kb

import (
	"strings"
	"unicode/utf8"
)

// Chunk is one passage of a document: lines Start through End (1-based,
// inclusive), and their text. A citation is "source:Start-End".
type Chunk struct {
	Start, End int
	Text       string
}

// ChunkOptions size the passages. Zero values take the defaults.
type ChunkOptions struct {
	// Lines is the most lines in a passage (default 40).
	Lines int
	// Overlap is how many lines a passage repeats from the end of the one
	// before (default 5), so an answer that straddles a cut is whole in
	// one of them.
	Overlap int
	// MaxChars is the most characters in a passage (default 4,000). A
	// passage ends before the line that would pass it; one line longer
	// than this on its own (minified code, a table row) is the only case
	// cut inside a line, into pieces that all cite that line.
	MaxChars int
}

func (o ChunkOptions) withDefaults() ChunkOptions {
	if o.Lines <= 0 {
		o.Lines = 40
	}
	if o.Overlap < 0 || o.Overlap >= o.Lines {
		o.Overlap = 0
	}
	if o.Overlap == 0 && o.Lines > 1 {
		o.Overlap = min(5, o.Lines/4)
	}
	if o.MaxChars <= 0 {
		o.MaxChars = 4000
	}
	return o
}

// Split cuts text into passages on line boundaries, with overlap. CRLF
// and lone CR line ends count as line ends; a text with nothing but
// whitespace has no passages.
func Split(text string, o ChunkOptions) []Chunk {
	o = o.withDefaults()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	var out []Chunk
	for start := 0; start < len(lines); {
		if n := utf8.RuneCountInString(lines[start]); n > o.MaxChars {
			for _, piece := range cutLine(lines[start], o.MaxChars) {
				out = append(out, Chunk{Start: start + 1, End: start + 1, Text: piece})
			}
			start++
			continue
		}
		end, size := start, 0
		for end < len(lines) && end-start < o.Lines {
			n := utf8.RuneCountInString(lines[end]) + 1
			if end > start && size+n > o.MaxChars {
				break
			}
			size += n
			end++
		}
		body := strings.Join(lines[start:end], "\n")
		if strings.TrimSpace(body) != "" {
			out = append(out, Chunk{Start: start + 1, End: end, Text: body})
		}
		if end >= len(lines) {
			break
		}
		start = max(end-o.Overlap, start+1)
	}
	return out
}

// cutLine cuts one over-long line into pieces of at most n runes.
func cutLine(line string, n int) []string {
	var out []string
	for line != "" {
		i, k := 0, 0
		for i < len(line) && k < n {
			_, size := utf8.DecodeRuneInString(line[i:])
			i += size
			k++
		}
		out = append(out, line[:i])
		line = line[i:]
	}
	return out
}
