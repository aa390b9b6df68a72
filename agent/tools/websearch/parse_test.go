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

// TestParseShapes: each backend's parser on answers that are not quite
// its own: an empty list is no results; a missing list, another shape or
// not JSON is an error; a field of another type reads as empty.
func TestParseShapes(t *testing.T) {
	tests := []struct {
		name  string
		parse func([]byte, int) ([]Result, error)
		body  string
		n     int // results; -1 an error
	}{
		{"searxng, none", ParseSearXNG, `{"results":[]}`, 0},
		{"searxng, no list", ParseSearXNG, `{"answers":[]}`, -1},
		{"searxng, list of another type", ParseSearXNG, `{"results":{"a":1}}`, -1},
		{"searxng, odd fields", ParseSearXNG, `{"results":[{"title":7,"url":"https://a.example/","content":null,"publishedDate":false}]}`, 1},
		{"searxng, snippet and date spelled otherwise", ParseSearXNG, `{"results":[{"title":"t","url":"https://a.example/","snippet":"s","date":"2026-01-02"}]}`, 1},
		{"searxng, not JSON", ParseSearXNG, `<html>`, -1},
		{"brave, nothing found", ParseBrave, `{"type":"search","query":{"original":"q"}}`, 0},
		{"brave, an error object", ParseBrave, `{"type":"ErrorResponse","error":{"code":"x"}}`, -1},
		{"brave, results", ParseBrave, `{"type":"search","web":{"results":[{"title":"t","url":"https://a.example/","description":"<strong>d</strong>"}]}}`, 1},
		{"tavily, none", ParseTavily, `{"query":"q","results":[]}`, 0},
		{"tavily, null", ParseTavily, `{"query":"q","results":null}`, -1},
		{"tavily, an error", ParseTavily, `{"detail":{"error":"bad"}}`, -1},
	}
	for _, tt := range tests {
		rs, err := tt.parse([]byte(tt.body), 5)
		switch {
		case tt.n < 0 && err == nil:
			t.Errorf("%s: %+v, want an error", tt.name, rs)
		case tt.n >= 0 && (err != nil || len(rs) != tt.n):
			t.Errorf("%s: %+v, %v; want %d results", tt.name, rs, err, tt.n)
		}
	}
	rs, _ := ParseSearXNG([]byte(`{"results":[{"title":"t","url":"https://a.example/","snippet":"s","date":"2026-01-02T03:04:05Z"}]}`), 5)
	if len(rs) != 1 || rs[0].Snippet != "s" || rs[0].Date != "2026-01-02" {
		t.Errorf("snippet and date: %+v", rs)
	}
	rs, _ = ParseBrave([]byte(`{"type":"search","web":{"results":[{"title":"t","url":"https://a.example/","description":"<strong>d</strong> &amp; e","age":"3 days ago"}]}}`), 5)
	if len(rs) != 1 || rs[0].Snippet != "d & e" || rs[0].Date != "3 days ago" {
		t.Errorf("brave: %+v", rs)
	}
}
