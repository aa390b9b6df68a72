package webconsole

import "strings"

// A revision's diff, drawn on the server: what a skill file or a note was
// before a change against what came after, line by line. Skills and notes
// are short (a note is at most 1,500 characters), so a plain longest
// common subsequence over lines is enough, and keeps a diff library out of
// the binary. The template escapes every line.

// diffLine is one line of a diff: Op is ' ' (in both), '-' (only before)
// or '+' (only after).
type diffLine struct {
	Op   string
	Text string
}

// maxDiffLines bounds the table the LCS fills (lines before × after): a
// hand-edited skill file of thousands of lines is shown as removed and
// added whole rather than costing the page seconds.
const maxDiffLines = 2000

// lineDiff is the diff from before to after.
func lineDiff(before, after string) []diffLine {
	a, b := lines(before), lines(after)
	// Common head and tail first: most changes touch a few lines.
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	var out []diffLine
	for _, l := range a[:head] {
		out = append(out, diffLine{" ", l})
	}
	out = append(out, middle(a[head:len(a)-tail], b[head:len(b)-tail])...)
	for _, l := range a[len(a)-tail:] {
		out = append(out, diffLine{" ", l})
	}
	return out
}

// middle diffs what lies between the common head and tail by the longest
// common subsequence of lines.
func middle(a, b []string) []diffLine {
	var out []diffLine
	if len(a)*len(b) > maxDiffLines*maxDiffLines/4 {
		for _, l := range a {
			out = append(out, diffLine{"-", l})
		}
		for _, l := range b {
			out = append(out, diffLine{"+", l})
		}
		return out
	}
	// lcs[i][j] is the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, diffLine{" ", a[i]})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, diffLine{"-", a[i]})
			i++
		default:
			out = append(out, diffLine{"+", b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, diffLine{"-", a[i]})
	}
	for ; j < len(b); j++ {
		out = append(out, diffLine{"+", b[j]})
	}
	return out
}

// lines splits text into its lines; "" has none.
func lines(text string) []string {
	text = strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}
