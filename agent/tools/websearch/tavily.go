package websearch

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
)

// tavily asks Tavily: POST {base}/search, {"query", "max_results"}, with
// the key as a bearer token.
type tavily struct {
	base, key string
	h         *httpGetter
}

func (s *tavily) Name() string { return Tavily }

// Endpoint shows the query as a parameter, although it travels in the
// body: where it goes and what it carries.
func (s *tavily) Endpoint(query string, _ int) string {
	return shown(s.base + "/search?" + url.Values{"query": {query}}.Encode())
}

func (s *tavily) Search(ctx context.Context, query string, k int) ([]Result, error) {
	body, err := json.Marshal(struct {
		Query       string `json:"query"`
		MaxResults  int    `json:"max_results"`
		SearchDepth string `json:"search_depth"`
	}{query, k, "basic"})
	if err != nil {
		return nil, err
	}
	return s.h.results(ctx, Tavily, http.MethodPost, s.base+"/search", body, http.Header{"Authorization": {"Bearer " + s.key}}, k, ParseTavily)
}

// tavilyAnswer is the part of Tavily's answer read: results[] of title,
// url, content, published_date (news only).
type tavilyAnswer struct {
	Results *[]struct {
		Title         text `json:"title"`
		URL           text `json:"url"`
		Content       text `json:"content"`
		PublishedDate text `json:"published_date"`
	} `json:"results"`
}

// ParseTavily reads Tavily's answer into at most k results.
func ParseTavily(b []byte, k int) ([]Result, error) {
	var a tavilyAnswer
	if json.Unmarshal(b, &a) != nil || a.Results == nil {
		return nil, malformed(Tavily)
	}
	out := make([]Result, 0, len(*a.Results))
	for _, r := range *a.Results {
		out = append(out, Result{Title: string(r.Title), URL: string(r.URL), Snippet: string(r.Content), Date: string(r.PublishedDate)})
	}
	return tidy(out, k), nil
}
