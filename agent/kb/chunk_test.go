package kb

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func lines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		text string
		o    ChunkOptions
		want [][2]int // start, end of each passage
	}{
		{"empty", "", ChunkOptions{}, nil},
		{"only whitespace", " \n\t\n", ChunkOptions{}, nil},
		{"short", "one\ntwo\n", ChunkOptions{}, [][2]int{{1, 2}}},
		{"windows with overlap", lines(10), ChunkOptions{Lines: 4, Overlap: 1}, [][2]int{{1, 4}, {4, 7}, {7, 10}}},
		{"exact fit", lines(8), ChunkOptions{Lines: 4, Overlap: 1}, [][2]int{{1, 4}, {4, 7}, {7, 8}}},
		{"CRLF", "a\r\nb\r\nc\r\n", ChunkOptions{Lines: 2, Overlap: 1}, [][2]int{{1, 2}, {2, 3}}},
		{"character budget ends a passage at a line", "aaaa\nbbbb\ncccc\n", ChunkOptions{Lines: 10, Overlap: 1, MaxChars: 10}, [][2]int{{1, 2}, {2, 3}}},
		{"a very long line is cut into pieces citing it", "short\n" + strings.Repeat("x", 25) + "\nend\n", ChunkOptions{Lines: 10, Overlap: 1, MaxChars: 10},
			[][2]int{{1, 1}, {2, 2}, {2, 2}, {2, 2}, {3, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Split(tt.text, tt.o)
			var spans [][2]int
			for _, c := range got {
				spans = append(spans, [2]int{c.Start, c.End})
			}
			if fmt.Sprint(spans) != fmt.Sprint(tt.want) {
				t.Fatalf("passages %v, want %v", spans, tt.want)
			}
		})
	}
}

// FuzzSplit: every passage is whole lines of the text (except the pieces
// of one over-long line), within the budgets, in order; every line of the
// text is in some passage.
func FuzzSplit(f *testing.F) {
	f.Add("a\nb\nc\n", 2, 1, 10)
	f.Add("设备\r\n成语接龙\nParseModelRef\n", 1, 0, 3)
	f.Add(strings.Repeat("word ", 400), 40, 5, 100)
	f.Fuzz(func(t *testing.T, text string, n, overlap, maxChars int) {
		if !utf8.ValidString(text) || n < 1 || n > 200 || maxChars < 1 || maxChars > 10000 {
			t.Skip()
		}
		o := ChunkOptions{Lines: n, Overlap: overlap, MaxChars: maxChars}
		chunks := Split(text, o)
		norm := strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
		all := strings.Split(strings.TrimRight(norm, "\n"), "\n")
		covered := make([]bool, len(all)+1)
		prev := 0
		for _, c := range chunks {
			if c.Start < 1 || c.End > len(all) || c.Start > c.End || c.Start < prev {
				t.Fatalf("bad span %d-%d of %d lines (previous start %d)", c.Start, c.End, len(all), prev)
			}
			prev = c.Start
			if c.End-c.Start+1 > max(n, 1) {
				t.Fatalf("%d lines in a passage, budget %d", c.End-c.Start+1, n)
			}
			whole := strings.Join(all[c.Start-1:c.End], "\n")
			if c.Start == c.End && !strings.Contains(whole, c.Text) || c.Start != c.End && c.Text != whole {
				t.Fatalf("passage %d-%d is not the text's lines: %q", c.Start, c.End, c.Text)
			}
			for l := c.Start; l <= c.End; l++ {
				covered[l] = true
			}
		}
		for l := 1; l <= len(all); l++ {
			if !covered[l] && strings.TrimSpace(all[l-1]) != "" {
				t.Fatalf("line %d (%q) is in no passage", l, all[l-1])
			}
		}
	})
}
