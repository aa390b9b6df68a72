package format

import (
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
)

// containerDepth is the deepest nesting of list items and blockquotes
// under root.
func containerDepth(root ast.Node) int {
	depth, deepest := 0, 0
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n.(type) {
		case *ast.ListItem, *ast.Blockquote:
			if entering {
				depth++
				deepest = max(deepest, depth)
			} else {
				depth--
			}
		}
		return ast.WalkContinue, nil
	})
	return deepest
}

// TestDeepInputsBounded: the benchmark inputs parse at most maxNesting
// deep.
func TestDeepInputsBounded(t *testing.T) {
	for _, in := range deepInputs() {
		if d := containerDepth(parse(in.md).root); d > maxNesting {
			t.Errorf("%s: nested %d deep", in.name, d)
		}
	}
}

// deepInputs are answers of about 64K characters whose Markdown nests
// containers or links as deep as the text allows: the shapes that made
// parsing and rendering super-linear before parse bounded the nesting
// (see limitNesting).
func deepInputs() []struct{ name, md string } {
	const size = 64 << 10
	indented := func() string {
		var b strings.Builder
		for d := 0; b.Len() < size; d++ {
			b.WriteString(strings.Repeat("  ", d))
			b.WriteString("- item\n")
		}
		return b.String()
	}
	return []struct{ name, md string }{
		{"ListMarkers", strings.Repeat("- ", size/2) + "x"},
		{"ListRule", strings.Repeat("- ", size/2)},
		{"LinkOpeners", strings.Repeat("[a](", size/4)},
		{"Quotes", strings.Repeat("> ", size/2) + "x"},
		{"QuotesTight", strings.Repeat(">", size) + "x"},
		{"OrderedMarkers", strings.Repeat("1. ", size/3)},
		{"IndentedList", indented()},
	}
}

// BenchmarkDeepNesting renders and splits deepInputs; Ordinary, an
// ordinary answer of the same size, is the yardstick.
func BenchmarkDeepNesting(b *testing.B) {
	ins := append(deepInputs(), struct{ name, md string }{"Ordinary", benchAnswer(16)})
	for _, in := range ins {
		b.Run(in.name+"/Slack", func(b *testing.B) {
			for b.Loop() {
				Slack(in.md)
			}
		})
		b.Run(in.name+"/Terminal", func(b *testing.B) {
			for b.Loop() {
				Terminal(in.md, true)
			}
		})
		b.Run(in.name+"/SplitSlack", func(b *testing.B) {
			for b.Loop() {
				Split(in.md, SlackSplitLen, MeasureSlack)
			}
		})
	}
}

// TestDeepNestingIsText: past the limit, markers and link openers are
// text; nothing of the answer is lost.
func TestDeepNestingIsText(t *testing.T) {
	const n = 2000 // markers: well past the limit, quick under -race
	items := func() (string, []string) {
		var b strings.Builder
		var words []string
		for d := 0; d < 100; d++ {
			w := "item" + strconv.Itoa(d)
			b.WriteString(strings.Repeat("  ", d) + "- " + w + "\n")
			words = append(words, w)
		}
		return b.String(), words
	}
	indented, words := items()
	cases := []struct {
		name, md string
		want     []string // in Plain's and Terminal's output
	}{
		{"list markers", strings.Repeat("- ", n) + "x", []string{strings.Repeat("- ", n-maxNesting) + "x"}},
		{"star markers", strings.Repeat("* ", n) + "x", []string{strings.Repeat("* ", n-maxNesting) + "x"}},
		{"plus markers", strings.Repeat("+\t", n) + "x", []string{strings.Repeat("+\t", n-maxNesting) + "x"}},
		{"ordered markers", strings.Repeat("1. ", n) + "x", []string{strings.Repeat("1. ", n-maxNesting) + "x"}},
		{"ordered paren", strings.Repeat("9) ", n) + "x", []string{strings.Repeat("9) ", n-maxNesting) + "x"}},
		{"quotes", strings.Repeat("> ", n) + "x", []string{strings.Repeat("> ", n-maxNesting) + "x"}},
		{"tight quotes", strings.Repeat(">", n) + "x", []string{strings.Repeat(">", n-maxNesting) + "x"}},
		{"quoted lists", strings.Repeat("> - ", n/2) + "x", []string{strings.Repeat("> - ", n/2-maxNesting/2) + "x"}},
		{"link openers", strings.Repeat("[a](", n), []string{strings.Repeat("[a](", n)}},
		{"unclosed titles", strings.Repeat("[a](b (", n), []string{strings.Repeat("[a](b (", n)}},
		{"angle destinations", strings.Repeat("[a](<", n), []string{strings.Repeat("[a](<", n)}},
		{"image openers", strings.Repeat("![a](", n), []string{strings.Repeat("![a](", n)}},
		{"indented list", indented, words},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if len(nestingEscapes([]byte(tc.md))) == 0 {
				t.Fatal("no escape: the input does not test the limit")
			}
			if d := containerDepth(parse(tc.md).root); d > maxNesting {
				t.Errorf("nested %d deep", d)
			}
			for name, out := range map[string]string{"plain": Plain(tc.md), "terminal": Terminal(tc.md, false)} {
				for _, w := range tc.want {
					if !strings.Contains(out, w) {
						t.Errorf("%s: %.80q… lacks %.80q…", name, out, w)
					}
				}
				if strings.Contains(out, `\`) {
					t.Errorf("%s: a backslash shows: %.200q", name, out)
				}
			}
			// The other dialects: every word is still there.
			for name, out := range map[string]string{
				"slack": Slack(tc.md), "telegram": TelegramHTML(tc.md), "discord": Discord(tc.md),
			} {
				for _, w := range []string{"x", "a", "item99"} {
					if strings.Count(tc.md, w) > 0 && strings.Count(out, w) < strings.Count(tc.md, w) {
						t.Errorf("%s: %q %d times, want %d", name, w, strings.Count(out, w), strings.Count(tc.md, w))
					}
				}
			}
		})
	}
}

// TestNestingWithinLimit: ordinary Markdown, and nesting up to the limit,
// parses as written.
func TestNestingWithinLimit(t *testing.T) {
	ok := []string{
		benchAnswer(5),
		strings.Repeat("- ", maxNesting) + "x",
		strings.Repeat(">", maxNesting) + "x",
		strings.Repeat("> ", maxNesting) + "x",
		strings.Repeat("1. ", maxNesting) + "x",
		strings.Repeat("- - - ", 1000), // a rule, not lists
		strings.Repeat("* ", 1000) + "*",
		strings.Repeat("[a](https://example.com/x) ", 1000),
		"[a](https://example.com/" + strings.Repeat("x", 1000) + ")", // a long URL
		strings.Repeat("](", 1000),
	}
	var nested strings.Builder
	for d := 0; d < maxNesting; d++ {
		nested.WriteString(strings.Repeat("  ", d) + "- level\n")
	}
	ok = append(ok, nested.String())
	for _, tc := range goldenCases {
		ok = append(ok, tc.md)
	}
	for _, md := range ok {
		if esc := nestingEscapes([]byte(md)); len(esc) > 0 {
			t.Errorf("%.60q…: escapes at %v", md, esc)
		}
	}
	// A rule stays a rule however long.
	if got := Plain(strings.Repeat("- ", 1000)); got != ruleLine {
		t.Errorf("long rule: %.60q", got)
	}
}

// TestDeepNestingInCode: deep-looking lines in code are not escaped (the
// tree shows them as code), so no backslash shows, while the same lines
// outside code still are.
func TestDeepNestingInCode(t *testing.T) {
	deep := strings.Repeat(" ", 80) + "- name: x"
	chain := strings.Repeat("- ", 40) + "zz"
	links := strings.Repeat("[a](", 100)
	for _, tc := range []struct{ code, rest string }{
		{"```yaml\n" + deep + "\n" + chain + "\n```\n\n", chain},
		{"> ~~~\n> " + chain + "\n> ~~~\n\n", chain},
		{"    " + chain + "\n\n", chain},
		{"<pre>\n" + chain + "\n</pre>\n\n", chain},
		{"`" + links + "`\n", links},
	} {
		md := tc.code + tc.rest
		src, _, esc := limitNesting([]byte(md))
		if len(esc) == 0 {
			t.Errorf("%.60q: no escape kept", md)
		}
		for k, e := range esc {
			if e.at < len(tc.code) {
				t.Errorf("%.60q: escape kept in code at %d", md, e.at)
			}
			if got := srcOffset(esc, e.at+k); got != e.at {
				t.Errorf("srcOffset(%d) = %d, want %d", e.at+k, got, e.at)
			}
			if got := srcOffset(esc, e.at+k+1); got != e.at {
				t.Errorf("srcOffset(%d) = %d, want %d", e.at+k+1, got, e.at)
			}
			if src[e.at+k] != '\\' {
				t.Errorf("no backslash at %d", e.at+k)
			}
		}
		for name, out := range map[string]string{"plain": Plain(md), "terminal": Terminal(md, false)} {
			if strings.Contains(out, `\`) {
				t.Errorf("%s: a backslash shows in %q", name, out)
			}
			if strings.Count(out, "zz")+strings.Count(out, "[a](") != strings.Count(md, "zz")+strings.Count(md, "[a](") {
				t.Errorf("%s: lost text: %q", name, out)
			}
		}
	}
}

// TestSplitDeepNesting: Split keeps its promises on deep input, with
// fences and tables (whose regions are found on the escaped source).
func TestSplitDeepNesting(t *testing.T) {
	chain := strings.Repeat("- ", 300) + "x"
	md := chain + "\n\n```go\n" + chain + "\n```\n\n" + strings.Repeat("> ", 300) + "| a | b |\n|---|---|\n| 1 | 2 |\n\n" +
		strings.Repeat("- ", 20) + "| a | b |\n" + strings.Repeat("  ", 20) + "|---|---|\n" + strings.Repeat("  ", 20) + "| 1 | 2 |\n\n" +
		strings.Repeat("[a](", 400) + "\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
	for _, limit := range []int{200, 1000} {
		checkSplit(t, md, limit, MeasureSlack)
		checkSplit(t, md, limit, MeasureTelegram)
	}
	rs := findRegions(md)
	if len(rs) != 2 || !strings.HasPrefix(md[rs[0].start:], "```go\n- - ") || md[rs[0].end-4:rs[0].end] != "```\n" ||
		!strings.HasPrefix(md[rs[1].start:], "| a | b |\n") || rs[1].end != len(md) {
		t.Errorf("regions %+v", rs)
	}
}
