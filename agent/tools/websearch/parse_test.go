package websearch

import (
	"strings"
	"testing"
	"unicode"
)

// TestTidy: only http(s) URLs with a host, each once; markup, entities,
// control and invisible characters gone; long text clipped; k at most.
func TestTidy(t *testing.T) {
	in := []Result{
		{Title: "ok", URL: "https://a.example/1"},
		{Title: "again", URL: "https://a.example/1"},
		{Title: "script", URL: "javascript:alert(1)"},
		{Title: "ftp", URL: "ftp://a.example/f"},
		{Title: "relative", URL: "/local"},
		{Title: "credentials", URL: "https://user:pw@a.example/"},
		{Title: "space", URL: "https://a.example/a b"},
		{Title: "e\u202evil\u200b\x07 <i>x</i>", URL: "http://b.example/?q=1", Snippet: "line one\n\nline\ttwo &lt;3 " + strings.Repeat("y", 600), Date: "Mon, 02 Jan 2026 15:04:05 GMT"},
		{Title: "", URL: "https://c.example/", Date: "3 days ago"},
		{Title: "past k", URL: "https://d.example/"},
	}
	got := tidy(in, 3)
	if len(got) != 3 {
		t.Fatalf("%d results: %+v", len(got), got)
	}
	if got[0].URL != "https://a.example/1" || got[1].URL != "http://b.example/?q=1" || got[2].URL != "https://c.example/" {
		t.Fatalf("kept %+v", got)
	}
	r := got[1]
	if r.Title != "evil x" || r.Date != "2026-01-02" || !strings.HasPrefix(r.Snippet, "line one line two <3 yyy") ||
		len([]rune(r.Snippet)) != maxSnippet || !strings.HasSuffix(r.Snippet, "…") {
		t.Errorf("cleaned %+v", r)
	}
	if got[2].Title != "(untitled)" || got[2].Date != "3 days ago" {
		t.Errorf("untitled %+v", got[2])
	}
}

// FuzzParse: whatever a backend answers, parsing never panics, and what
// comes out is at most k results, each an http(s) URL and one line of
// text without control or invisible characters, within the caps.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"results":[{"title":"a","url":"https://a.example","content":"c","publishedDate":null}]}`), 3)
	f.Add([]byte(`{"type":"search","web":{"results":[{"title":"t","url":"http://x.y/","description":"<strong>d</strong>","page_age":"2024-01-01T00:00:00"}]}}`), 5)
	f.Add([]byte(`{"results":[{"title":1,"url":["x"],"content":{"a":1},"published_date":"Mon, 01 Jan 2024 00:00:00 GMT"}]}`), 2)
	f.Add([]byte(`{"results":null}`), 1)
	f.Add([]byte(`{"results":[{"url":"https://a.example/\u202e","title":"\u0000\u200b"}]}`), 10)
	f.Fuzz(func(t *testing.T, b []byte, k int) {
		k = max(1, min(k, MaxK))
		for _, parse := range []func([]byte, int) ([]Result, error){ParseSearXNG, ParseBrave, ParseTavily} {
			rs, err := parse(b, k)
			if err != nil {
				continue
			}
			if len(rs) > k {
				t.Fatalf("%d results for k %d", len(rs), k)
			}
			for _, r := range rs {
				if cleanURL(r.URL) != r.URL || r.URL == "" {
					t.Fatalf("URL %q kept", r.URL)
				}
				for _, s := range []string{r.Title, r.Snippet, r.Date} {
					if strings.ContainsFunc(s, func(c rune) bool {
						return unicode.IsControl(c) || unicode.Is(unicode.Cf, c) || c == '\n'
					}) {
						t.Fatalf("field %q holds a control or invisible character", s)
					}
				}
				if len([]rune(r.Title)) > maxTitle || len([]rune(r.Snippet)) > maxSnippet || len([]rune(r.Date)) > maxDate {
					t.Fatalf("over a cap: %+v", r)
				}
			}
		}
	})
}
