package format

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func runes(s string) int { return utf8.RuneCountInString(s) }

// plainRunes measures like a platform counting characters of Plain text:
// simple to reason about in expectations.
func plainRunes(s string) int { return runes(Plain(s)) }

func sources(parts []Part) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.Source
	}
	return out
}

func TestSplitSmallAndEmpty(t *testing.T) {
	if got := Split("", 100, plainRunes); got != nil {
		t.Errorf("Split(\"\") = %q, want nil", got)
	}
	md := "short **answer**"
	if got := Split(md, 100, plainRunes); len(got) != 1 || got[0] != md {
		t.Errorf("Split(%q) = %q, want the input", md, got)
	}
}

func TestSplitPreferences(t *testing.T) {
	tests := []struct {
		name  string
		md    string
		limit int
		want  []string // Sources
	}{
		{
			name:  "blank line between blocks beats a later line end",
			md:    "First paragraph here.\n\nSecond one,\nwith two lines.",
			limit: 40,
			want:  []string{"First paragraph here.\n\n", "Second one,\nwith two lines."},
		},
		{
			name:  "line end beats sentence end",
			md:    "Line one. Still one.\nLine two is longer. Yes.",
			limit: 30,
			want:  []string{"Line one. Still one.\n", "Line two is longer. Yes."},
		},
		{
			name:  "sentence end beats space",
			md:    "Alpha beta gamma. Delta epsilon zeta eta theta.",
			limit: 30,
			want:  []string{"Alpha beta gamma. ", "Delta epsilon zeta eta theta."},
		},
		{
			name:  "CJK sentence end needs no space",
			md:    "这是第一个句子。这是第二个句子。这是第三个句子。",
			limit: 18,
			want:  []string{"这是第一个句子。这是第二个句子。", "这是第三个句子。"},
		},
		{
			name:  "space when nothing better",
			md:    "one two three four five six seven eight nine",
			limit: 20,
			want:  []string{"one two three four ", "five six seven eight ", "nine"},
		},
		{
			name:  "grapheme clusters stay whole",
			md:    strings.Repeat("👨‍👩‍👧‍👦", 3),
			limit: 1, // less than one cluster: each part is one whole cluster
			want:  []string{"👨‍👩‍👧‍👦", "👨‍👩‍👧‍👦", "👨‍👩‍👧‍👦"},
		},
		{
			name:  "combining marks stay with their base",
			md:    "e\u0301e\u0301e\u0301e\u0301",
			limit: 2,
			want:  []string{"e\u0301", "e\u0301", "e\u0301", "e\u0301"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sources(checkSplit(t, tc.md, tc.limit, plainRunes))
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("sources\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestSplitFenceReopens(t *testing.T) {
	var b strings.Builder
	b.WriteString("Intro.\n\n```go\n")
	for i := range 30 {
		b.WriteString("fmt.Println(" + strings.Repeat("x", i%7) + ")\n")
	}
	b.WriteString("```\n\nOutro.")
	parts := checkSplit(t, b.String(), 200, MeasureDiscord)
	if len(parts) < 3 {
		t.Fatalf("want several parts, got %d", len(parts))
	}
	for i, p := range parts {
		if i > 0 && i < len(parts)-1 && p.Prefix != "```go\n" {
			t.Errorf("part %d prefix = %q, want the opener with its info string", i, p.Prefix)
		}
		if i < len(parts)-2 && p.Suffix != "```" {
			t.Errorf("part %d suffix = %q, want ```", i, p.Suffix)
		}
		out := Discord(p.Text)
		if strings.Count(out, "```")%2 != 0 {
			t.Errorf("part %d renders unbalanced fences:\n%s", i, out)
		}
		if i > 0 && i < len(parts)-1 && !strings.HasPrefix(out, "```go\n") {
			t.Errorf("part %d does not reopen with the language:\n%s", i, out)
		}
	}
}

func TestSplitFenceInQuoteAndMidLine(t *testing.T) {
	md := "> ```sh\n> " + strings.Repeat("word ", 30) + "\n> echo done\n> ```\n"
	parts := checkSplit(t, md, 60, MeasureTelegram)
	if len(parts) < 2 {
		t.Fatalf("want several parts, got %d", len(parts))
	}
	if got := parts[1].Prefix; got != "> ```sh\n> " {
		t.Errorf("mid-line reopen in a quote = %q", got)
	}
	if got := parts[0].Suffix; got != "\n> ```" {
		t.Errorf("mid-line close in a quote = %q", got)
	}
	for i, p := range parts {
		html := TelegramHTML(p.Text)
		if !strings.HasPrefix(html, "<blockquote><pre><code class=\"language-sh\">") {
			t.Errorf("part %d is not a quoted code block: %q", i, html)
		}
	}
}

func TestSplitTableRepeatsHeader(t *testing.T) {
	md := "| Key | Value |\n|-----|------:|\n"
	for i := range 20 {
		md += "| k" + strings.Repeat("x", i%5) + " | " + strings.Repeat("9", i%4+1) + " |\n"
	}
	parts := checkSplit(t, md, 120, MeasureSlack)
	if len(parts) < 2 {
		t.Fatalf("want several parts, got %d", len(parts))
	}
	for i, p := range parts[1:] {
		if p.Prefix != "| Key | Value |\n|-----|------:|\n" {
			t.Errorf("part %d prefix = %q, want the header rows", i+1, p.Prefix)
		}
		if out := Slack(p.Text); !strings.HasPrefix(out, "```\nKey") {
			t.Errorf("part %d does not render as a table:\n%s", i+1, out)
		}
	}
}

func TestSplitRendersWithinLimit(t *testing.T) {
	md := benchAnswer(5)
	for _, target := range targets() {
		t.Run(target.name, func(t *testing.T) {
			parts := checkSplit(t, md, target.splitLen, target.measure)
			if len(parts) < 2 {
				t.Fatalf("20 KB in %d part(s)", len(parts))
			}
			for i, p := range parts {
				if m := target.measure(p.Text); m > target.splitLen || m < target.splitLen/3 && i < len(parts)-1 {
					t.Errorf("part %d measures %d (limit %d)", i, m, target.splitLen)
				}
				if out := target.render(p.Text); target.name == "telegram" {
					if err := checkTelegramHTML(out); err != nil {
						t.Errorf("part %d: %v", i, err)
					}
				}
			}
			texts := Split(md, target.splitLen, target.measure)
			if len(texts) != len(parts) || texts[0] != parts[0].Text {
				t.Errorf("Split disagrees with SplitParts")
			}
		})
	}
}

func TestSplitInvalidUTF8(t *testing.T) {
	parts := checkSplit(t, "ab\xffcd\xfe "+strings.Repeat("z", 50), 20, plainRunes)
	for _, p := range parts {
		if !utf8.ValidString(p.Text) {
			t.Errorf("invalid UTF-8 in %q", p.Text)
		}
	}
}

// TestSplitSourceMeasure uses a measure that counts the Markdown itself, so
// the fence lines the splitter adds count too, including the closing line
// added to an answer that ends inside a fence.
func TestSplitSourceMeasure(t *testing.T) {
	md := "Some text first.\n\n```python\n" + strings.Repeat("print('hello')\n", 12)
	srcLen := func(s string) int { return len(s) }
	parts := checkSplit(t, md, 60, srcLen)
	last := parts[len(parts)-1]
	if !strings.HasSuffix(last.Text, "```") {
		t.Errorf("last part leaves the fence open: %q", last.Text)
	}
	for i, p := range parts {
		if len(p.Text) > 60 {
			t.Errorf("part %d is %d bytes: %q", i, len(p.Text), p.Text)
		}
	}
}

// TestSplitDegradedReopen: when a repeated table header or a fence's info
// string leaves no room under the limit, later parts drop it instead of
// degenerating into one-character parts.
func TestSplitDegradedReopen(t *testing.T) {
	table := "| a very wide header cell | another wide header |\n|---|---|\n" + strings.Repeat("| x | y |\n", 12)
	parts := checkSplit(t, table, 60, MeasureTelegram)
	if len(parts) > 6 {
		t.Errorf("table split into %d parts", len(parts))
	}
	for i, p := range parts[1:] {
		if p.Prefix != "" {
			t.Errorf("part %d still repeats the header: %q", i+1, p.Prefix)
		}
	}

	fence := "```" + strings.Repeat("x", 40) + "\n" + strings.Repeat("code line\n", 12) + "```\n"
	// Measured as source, so the 40-byte info string counts.
	parts = checkSplit(t, fence, 40, func(s string) int { return len(s) })
	if len(parts) < 3 {
		t.Fatalf("fence in %d parts", len(parts))
	}
	for i, p := range parts[1:] {
		if p.Prefix != "```\n" {
			t.Errorf("part %d reopens with %q, want a bare fence", i+1, p.Prefix)
		}
	}
}
