package websearch

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// searxng asks a SearXNG instance: GET {base}/search?q=…&format=json
// (the instance must list json in search.formats).
type searxng struct {
	base string
	h    *httpGetter
}

func (s *searxng) Name() string { return SearXNG }

func (s *searxng) Endpoint(query string, k int) string { return shown(s.request(query, k)) }

func (s *searxng) request(query string, _ int) string {
	return s.base + "/search?" + url.Values{"q": {query}, "format": {"json"}}.Encode()
}

func (s *searxng) Search(ctx context.Context, query string, k int) ([]Result, error) {
	return s.h.results(ctx, SearXNG, http.MethodGet, s.request(query, k), nil, nil, k, ParseSearXNG)
}

// searxngAnswer is SearXNG's JSON answer, and the template backend's:
// results[] of title, url, a snippet as content (or snippet), a date as
// publishedDate (or date).
type searxngAnswer struct {
	Results *[]struct {
		Title         text `json:"title"`
		URL           text `json:"url"`
		Content       text `json:"content"`
		Snippet       text `json:"snippet"`
		PublishedDate text `json:"publishedDate"`
		Date          text `json:"date"`
	} `json:"results"`
}

// ParseSearXNG reads SearXNG's answer (and the template backend's, the
// same shape) into at most k results.
func ParseSearXNG(b []byte, k int) ([]Result, error) {
	return parseSearXNG(SearXNG, b, k)
}

func parseSearXNG(backend string, b []byte, k int) ([]Result, error) {
	var a searxngAnswer
	if json.Unmarshal(b, &a) != nil || a.Results == nil {
		return nil, malformed(backend)
	}
	out := make([]Result, 0, len(*a.Results))
	for _, r := range *a.Results {
		out = append(out, Result{Title: string(r.Title), URL: string(r.URL),
			Snippet: string(or(r.Content, r.Snippet)), Date: string(or(r.PublishedDate, r.Date))})
	}
	return tidy(out, k), nil
}

func or(a, b text) text {
	if a != "" {
		return a
	}
	return b
}

// kParam is k as a query parameter.
func kParam(k int) string { return strconv.Itoa(k) }
