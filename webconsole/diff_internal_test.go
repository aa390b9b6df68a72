package webconsole

import (
	"strings"
	"testing"
)

func TestLineDiff(t *testing.T) {
	tests := []struct {
		name, before, after string
		want                string // each line's op and text, joined by "|"
	}{
		{"created", "", "a\nb\n", "+a|+b"},
		{"deleted", "a\nb", "", "-a|-b"},
		{"same", "a\nb", "a\nb\n", " a| b"},
		{"one line changed", "a\nb\nc", "a\nB\nc", " a|-b|+B| c"},
		{"a line added in the middle", "a\nc", "a\nb\nc", " a|+b| c"},
		{"moved apart", "x\na\nb\ny", "x\nb\na\ny", " x|-a| b|+a| y"},
		{"CRLF is a newline", "a\r\nb", "a\nb", " a| b"},
	}
	for _, tt := range tests {
		var got []string
		for _, l := range lineDiff(tt.before, tt.after) {
			got = append(got, l.Op+l.Text)
		}
		if g := strings.Join(got, "|"); g != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, g, tt.want)
		}
	}
	// Past the bound, the middle is removed and added whole.
	big := strings.Repeat("x\n", maxDiffLines)
	if d := lineDiff("a\n"+big, "b\n"+strings.Repeat("y\n", maxDiffLines)); len(d) != 2*(maxDiffLines+1) {
		t.Errorf("a large diff has %d lines", len(d))
	}
}
