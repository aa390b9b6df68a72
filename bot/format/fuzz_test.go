package format

import (
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"github.com/yuin/goldmark/ast"
)

// fuzzSeeds are shared by every fuzz target: the golden inputs plus
// constructs that stress fences, containers, CJK and mentions.
func fuzzSeeds(f *testing.F) {
	for _, tc := range goldenCases {
		f.Add(tc.md)
	}
	for _, s := range []string{
		benchAnswer(1),
		"> ```go\n> a\n> b\n> ```\n",
		"- item\n  ```py\n  x = 1\n  ```\n- next",
		"<div>\n```\n</div>\n\ntext",
		"````\n```\n````",
		"~~~ruby\nputs 1\n",
		"| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |",
		"**a *b **c** d* e**",
		"[a [b] c](<http://x y> \"t\")",
		"***bold italic*** __*x*__",
		"@Everyone@here<!channel>@ChAnNeL",
		"x\\ **「重要」**\\ y `\\ `",
		"e\u0301\u0301\u0301 🏳️‍🌈 👩🏽‍💻 🇺🇸🇯🇵",
		"\x00\xff\xfe<b>\r\n&#0; &#x110000; &bogus;",
		"\x1b[2J\x1b]52;c;eA==\x07 \u009b2J `\x1b[H` [a\x1b](https://e.com/\x1b)\n\n```\n\r\x1b[1A\n```\n\n&#27;[0m&#x9b;",
		"# [a](https://x.io) **b** `c`\n\n> [d](https://x.io) ~~e~~ *f*",
	} {
		f.Add(s)
	}
	for _, s := range deepSeeds() {
		f.Add(s)
	}
}

// deepSeeds nest past limitNesting's limits, small enough for FuzzSplit.
func deepSeeds() []string {
	var indented strings.Builder
	for d := 0; d < 40; d++ {
		indented.WriteString(strings.Repeat("  ", d) + "- item\n")
	}
	return []string{
		strings.Repeat("- ", 300) + "x",
		strings.Repeat("> ", 300) + "x",
		strings.Repeat(">", 600) + "x",
		strings.Repeat("1. ", 200) + "x",
		strings.Repeat("> - ", 150) + "x\n" + strings.Repeat("> ", 100) + "y",
		strings.Repeat("[a](", 150),
		strings.Repeat("[a](<", 120) + "\n\n" + strings.Repeat("![a](b (", 80),
		indented.String(),
		"```\n" + strings.Repeat("- ", 100) + "x\n```\n" + strings.Repeat("- ", 100) + "| a |\n|---|\n",
	}
}

// lowerHasMassMention reports an un-neutralized mass mention.
func lowerHasMassMention(s string, slack bool) string {
	l := strings.ToLower(s)
	keys := []string{"@everyone", "@here"}
	if slack {
		keys = append(keys, "@channel", "<!channel", "<!here", "<!everyone")
	}
	for _, k := range keys {
		if strings.Contains(l, k) {
			return k
		}
	}
	return ""
}

// checkCommon holds for every dialect: valid UTF-8, and the CJK pre-pass
// never leaks a backslash into output whose input had none.
func checkCommon(t *testing.T, name, md, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%s: invalid UTF-8 output %q", name, out)
	}
	// (A character reference can produce a backslash, hence the '&'.)
	if !strings.ContainsAny(md, "\\&") && strings.Contains(out, "\\") && name != "discord" {
		t.Fatalf("%s: stray backslash in %q (input %q)", name, out, md)
	}
	if !strings.Contains(md, "\\") && strings.Contains(out, "\\ ") {
		t.Fatalf("%s: stray escaped space in %q (input %q)", name, out, md)
	}
}

func FuzzTelegramHTML(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, md string) {
		out := TelegramHTML(md)
		checkCommon(t, "telegram", md, out)
		if err := checkTelegramHTML(out); err != nil {
			t.Fatalf("invalid Telegram HTML: %v\ninput %q\noutput %q", err, md, out)
		}
		if strings.Contains(out, "\x00") {
			t.Fatalf("NUL in output %q", out)
		}
		checkCommon(t, "plain", md, Plain(md))
	})
}

// slackAngle matches the only '<…>' Slack output may contain: links.
var slackAngle = regexp.MustCompile(`^<(https?:|mailto:)[^<>|\s]*(\|[^<>]*)?>`)

func FuzzSlack(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, md string) {
		out := Slack(md)
		checkCommon(t, "slack", md, out)
		if k := lowerHasMassMention(out, true); k != "" {
			t.Fatalf("unneutralized %s in %q (input %q)", k, out, md)
		}
		for i := strings.IndexByte(out, '<'); i >= 0; {
			m := slackAngle.FindString(out[i:])
			if m == "" {
				t.Fatalf("raw '<' at %d in %q (input %q)", i, out, md)
			}
			next := strings.IndexByte(out[i+len(m):], '<')
			if next < 0 {
				break
			}
			i += len(m) + next
		}
	})
}

func FuzzDiscord(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, md string) {
		out := Discord(md)
		checkCommon(t, "discord", md, out)
		if k := lowerHasMassMention(out, false); k != "" {
			t.Fatalf("unneutralized %s in %q (input %q)", k, out, md)
		}
	})
}

// FuzzTerminal: Terminal's output can do nothing on a terminal but show
// text in the dialect's attributes (checkTerminal), with colour or
// without.
//
// It also checks that limitNesting bounds the nesting it promises to.
func FuzzTerminal(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, md string) {
		if d := containerDepth(parse(md).root); d > maxNesting {
			t.Fatalf("containers nested %d deep in %q", d, md)
		}
		for _, colour := range []bool{true, false} {
			out := Terminal(md, colour)
			checkCommon(t, "terminal", md, out)
			if err := checkTerminal(out, colour); err != "" {
				t.Fatalf("%s\ninput %q", err, md)
			}
		}
	})
}

var (
	fenceReopen = regexp.MustCompile("^[ \t>]*(`{3,}|~{3,})[^\n]*\n[ \t>]*$")
	fenceClose  = regexp.MustCompile("^\n?[ \t>]*(`{3,}|~{3,})$")
)

// fenceOpenAtEOF reports, using goldmark directly, whether a fenced code
// block in src runs to the end of the document without a closing line.
func fenceOpenAtEOF(src string) bool {
	open := false
	_ = ast.Walk(parseRaw([]byte(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fc, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		end := lineEnd(src, fc.Pos())
		if l := fc.Lines(); l.Len() > 0 {
			end = lineEnd(src, min(l.At(l.Len()-1).Start, len(src)))
		}
		if end >= len(src) {
			open = true
		}
		return ast.WalkSkipChildren, nil
	})
	return open
}

func graphemeBoundaries(s string) map[int]bool {
	b := map[int]bool{0: true}
	state, pos := -1, 0
	for rest := s; len(rest) > 0; {
		var c string
		c, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		pos += len(c)
		b[pos] = true
	}
	return b
}

// checkSplit verifies every property SplitParts promises.
func checkSplit(t *testing.T, md string, limit int, measure func(string) int) []Part {
	t.Helper()
	parts := SplitParts(md, limit, measure)
	src := strings.ToValidUTF8(md, "\uFFFD")
	var joined strings.Builder
	bounds := graphemeBoundaries(src)
	s := newSplitter(src, limit, measure)
	pos := 0
	for i, p := range parts {
		if p.Source == "" {
			t.Fatalf("part %d is empty", i)
		}
		if p.Text != p.Prefix+p.Source+p.Suffix {
			t.Fatalf("part %d: Text != Prefix+Source+Suffix", i)
		}
		if !utf8.ValidString(p.Text) {
			t.Fatalf("part %d: invalid UTF-8", i)
		}
		if !bounds[pos] || !bounds[pos+len(p.Source)] {
			t.Fatalf("part %d [%d,%d) cuts a grapheme cluster in %q", i, pos, pos+len(p.Source), src)
		}
		if p.Prefix != "" && !fenceReopen.MatchString(p.Prefix) && !strings.HasSuffix(p.Prefix, "\n") {
			t.Fatalf("part %d: unexpected prefix %q", i, p.Prefix)
		}
		if p.Suffix != "" && !fenceClose.MatchString(p.Suffix) {
			t.Fatalf("part %d: unexpected suffix %q", i, p.Suffix)
		}
		if fenceOpenAtEOF(p.Text) {
			t.Fatalf("part %d leaves a fence open: %q", i, p.Text)
		}
		if m := measure(p.Text); m > limit {
			// Allowed only when the part cannot be made smaller.
			k := sort.SearchInts(s.cuts, pos+1)
			if k < len(s.cuts) && s.cuts[k] != pos+len(p.Source) {
				t.Fatalf("part %d measures %d > %d but is reducible: %q", i, m, limit, p.Text)
			}
		}
		joined.WriteString(p.Source)
		pos += len(p.Source)
	}
	if joined.String() != src {
		t.Fatalf("parts do not reassemble the source:\n got %q\nwant %q", joined.String(), src)
	}
	return parts
}

func FuzzSplit(f *testing.F) {
	for _, tc := range goldenCases {
		f.Add(tc.md, uint16(0), uint8(0))
	}
	f.Add(benchAnswer(2), uint16(300), uint8(1))
	f.Add("```go\n"+strings.Repeat("x := 1\n", 40)+"```", uint16(10), uint8(2))
	f.Add("| a | b |\n|---|---|\n"+strings.Repeat("| 1 | 2 |\n", 30), uint16(40), uint8(0))
	f.Add(strings.Repeat("这是一个句子。", 40), uint16(5), uint8(0))
	f.Add(strings.Repeat("👨\u200d👩\u200d👧\u200d👦", 30), uint16(1), uint8(1))
	for i, s := range deepSeeds() {
		f.Add(s, uint16(100*i), uint8(i))
	}
	f.Fuzz(func(t *testing.T, md string, limit uint16, which uint8) {
		if len(md) > 4096 {
			return // keep each run fast; length adds nothing new
		}
		measures := []func(string) int{MeasureTelegram, MeasureSlack, MeasureDiscord, func(s string) int { return len(s) }}
		checkSplit(t, md, 20+int(limit%2000), measures[int(which)%len(measures)])
	})
}
