// Package websearch provides the web_search tool: a query sent to the
// search backend the operator configured (SearXNG, Brave Search, Tavily,
// or any service answering SearXNG's shape through a URL template), its
// results returned as title, URL, date when known and snippet — text from
// outside, which taints the turn (agent.Untrusted), and whose query is data
// leaving Parley (agent.Egress).
package websearch

import (
	"encoding/json"
	"html"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/parleybot/parley/internal/lazyre"
)

// Result is one search hit, as the model reads it.
type Result struct {
	Title   string
	URL     string
	Date    string // "2006-01-02" when the backend says; "" when unknown
	Snippet string
}

// Caps on what one result may carry into the conversation.
const (
	maxTitle   = 200
	maxSnippet = 500
	maxURL     = 2048
	maxDate    = 40
)

// text is a JSON value read as a string: a string as it is, null or any
// other kind as "", so one odd field never fails a whole answer.
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*t = text(s)
	}
	return nil
}

// tagPattern finds markup in a snippet (Brave marks matches with <strong>).
var tagPattern = lazyre.MustCompile(`<[^<>]{0,200}>`)

// clean is s as one line of plain text: markup and entities resolved,
// control and invisible format characters (bidi overrides, zero-width
// ones) dropped, white space collapsed, at most n runes.
func clean(s string, n int) string {
	s = html.UnescapeString(tagPattern().ReplaceAllString(s, ""))
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return clip(b.String(), n)
}

// clip cuts s to n runes, marking a cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// cleanURL is raw if it is an absolute http(s) URL with a host, written
// without spaces or control characters; "" otherwise.
func cleanURL(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > maxURL || strings.IndexFunc(raw, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
	}) >= 0 {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil {
		return ""
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return ""
	}
	return raw
}

// dateLayouts are the dates backends write: SearXNG's ISO times without a
// zone, Brave's page_age, Tavily's RFC 1123.
var dateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", time.DateOnly, time.RFC1123, time.RFC1123Z}

// cleanDate is raw as a day when it reads as a date, else raw as plain
// text ("3 days ago"), short.
func cleanDate(raw string) string {
	raw = strings.TrimSpace(raw)
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, raw); err == nil {
			return t.Format(time.DateOnly)
		}
	}
	return clean(raw, maxDate)
}

// tidy keeps the results worth showing, cleaned, at most k: those with an
// http(s) URL, each URL once.
func tidy(in []Result, k int) []Result {
	out := make([]Result, 0, min(len(in), k))
	seen := map[string]bool{}
	for _, r := range in {
		u := cleanURL(r.URL)
		if u == "" || seen[u] {
			continue
		}
		seen[u] = true
		title := clean(r.Title, maxTitle)
		if title == "" {
			title = "(untitled)"
		}
		out = append(out, Result{Title: title, URL: u, Date: cleanDate(r.Date), Snippet: clean(r.Snippet, maxSnippet)})
		if len(out) == k {
			break
		}
	}
	return out
}
