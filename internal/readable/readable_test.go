package readable

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct{ name, ct, body, want string }{
		{"header latin1", "text/plain; charset=iso-8859-1", "caf\xe9", "café"},
		{"windows-1252 quotes", "text/plain; charset=windows-1252", "\x93hi\x94", "“hi”"},
		{"utf-8", "text/plain; charset=utf-8", "café", "café"},
		{"utf-8 bom", "text/plain", "\xef\xbb\xbfcafé", "café"},
		{"utf-16le bom", "text/plain", "\xff\xfec\x00a\x00f\x00\xe9\x00", "café"},
		{"invalid utf-8 declared", "text/plain; charset=utf-8", "caf\xff", "caf\uFFFD"},
		{"meta charset", "text/html", `<meta charset="iso-8859-1"><p>caf` + "\xe9", `<meta charset="iso-8859-1"><p>café`},
		{"no hint, valid utf-8", "text/html", "<p>café</p>", "<p>café</p>"},
		{"no header at all", "", "<p>café</p>", "<p>café</p>"},
		{"shift_jis", "text/plain; charset=shift_jis", "\x93\xfa\x96\x7b", "日本"},
	}
	for _, tt := range tests {
		if got := Decode([]byte(tt.body), tt.ct); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

const article = `<!doctype html><html><head><title>  The   Tides
of Brest </title><style>p{color:red} STYLE-SENTINEL</style>
<script>var s = "SCRIPT-SENTINEL";</script></head><body>
<nav><a href="/">NAV-SENTINEL Home</a></nav>
<article><h1>Tides</h1>
<p>The harbour of Brest sees some of the largest tidal ranges in Europe. Twice a day the sea rises
and falls by as much as seven metres, and every sailor plans around it. See <a href="/tables">the tables</a>.</p>
<p>A tide coefficient compares the range of a given tide with the average range of spring tides;
a coefficient of 100 is an average spring tide and 120 the theoretical maximum.</p>
<img alt="pixel" src="data:image/png;base64,` + "AAAAAAAAAAAAAAAAAAAAAAAA" + `"><img src="/chart.png" alt="chart">
<table><thead><tr><th>Day</th><th>Coefficient</th></tr></thead>
<tbody><tr><td>Monday</td><td>95</td></tr></tbody></table>
</article><footer>FOOTER-SENTINEL</footer></body></html>`

func TestMarkdown(t *testing.T) {
	base, _ := url.Parse("https://example.com/news/tides")
	tests := []struct {
		name     string
		src      string
		base     *url.URL
		title    string
		contains []string
		excludes []string
	}{
		{
			name:  "article with base",
			src:   article,
			base:  base,
			title: "The Tides of Brest",
			contains: []string{
				"largest tidal ranges", "[the tables](https://example.com/tables)",
				"| Day | Coefficient |", "| Monday | 95 |", "https://example.com/chart.png",
			},
			excludes: []string{"SCRIPT-SENTINEL", "STYLE-SENTINEL", "NAV-SENTINEL", "FOOTER-SENTINEL", "base64", "<p>"},
		},
		{
			name:     "no base keeps relative links",
			src:      article,
			title:    "The Tides of Brest",
			contains: []string{"[the tables](/tables)", "| Monday | 95 |"},
			excludes: []string{"SCRIPT-SENTINEL", "STYLE-SENTINEL", "base64"},
		},
		{
			name:     "link list falls back to the whole page",
			src:      `<html><head><title>Index</title></head><body><ul><li><a href="/a">LINK-ONE</a></li><li><a href="/b">LINK-TWO</a></li></ul><script>x("SCRIPT-SENTINEL")</script></body></html>`,
			base:     base,
			title:    "Index",
			contains: []string{"[LINK-ONE](https://example.com/a)", "LINK-TWO"},
			excludes: []string{"SCRIPT-SENTINEL"},
		},
		{
			name:     "h1 when no title",
			src:      `<html><body><h1>Only a heading</h1><p>short</p></body></html>`,
			title:    "Only a heading",
			contains: []string{"short"},
		},
		{name: "fragment", src: `plain <b>bold</b>`, contains: []string{"plain **bold**"}},
		{name: "empty", src: ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			title, md, err := Markdown(context.Background(), tt.src, tt.base)
			if err != nil {
				t.Fatal(err)
			}
			if title != tt.title {
				t.Errorf("title = %q, want %q", title, tt.title)
			}
			for _, s := range tt.contains {
				if !strings.Contains(md, s) {
					t.Errorf("markdown lacks %q\n---\n%s", s, md)
				}
			}
			for _, s := range tt.excludes {
				if strings.Contains(md, s) {
					t.Errorf("markdown contains %q\n---\n%s", s, md)
				}
			}
		})
	}
}

func TestCleanTitle(t *testing.T) {
	if got := CleanTitle("  a\n\tb  c "); got != "a b c" {
		t.Errorf("got %q", got)
	}
	long := strings.Repeat("é", 250)
	if got := CleanTitle(long); got != strings.Repeat("é", 200)+"…" {
		t.Errorf("long title: %d runes", len([]rune(got)))
	}
}

func TestCleanTitleInvalidUTF8(t *testing.T) {
	if got := CleanTitle("caf\xe9  au\x80lait"); got != "caf\uFFFD au\uFFFDlait" {
		t.Errorf("got %q", got)
	}
}
