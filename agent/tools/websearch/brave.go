package websearch

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
)

// brave asks the Brave Search API: GET {base}/res/v1/web/search?q=…&count=k
// with the key in X-Subscription-Token.
type brave struct {
	base, key string
	h         *httpGetter
}

func (s *brave) Name() string { return Brave }

func (s *brave) Endpoint(query string, k int) string { return shown(s.request(query, k)) }

func (s *brave) request(query string, k int) string {
	return s.base + "/res/v1/web/search?" + url.Values{"q": {query}, "count": {kParam(k)}}.Encode()
}

func (s *brave) Search(ctx context.Context, query string, k int) ([]Result, error) {
	return s.h.results(ctx, Brave, http.MethodGet, s.request(query, k), nil, http.Header{"X-Subscription-Token": {s.key}}, k, ParseBrave)
}

// braveAnswer is the part of Brave's answer read: web.results[] of title,
// url, description, page_age (a date) or age ("3 days ago"). An answer
// without web (nothing found) has no results.
type braveAnswer struct {
	Type text `json:"type"`
	Web  *struct {
		Results []struct {
			Title       text `json:"title"`
			URL         text `json:"url"`
			Description text `json:"description"`
			PageAge     text `json:"page_age"`
			Age         text `json:"age"`
		} `json:"results"`
	} `json:"web"`
}

// ParseBrave reads Brave's answer into at most k results.
func ParseBrave(b []byte, k int) ([]Result, error) {
	var a braveAnswer
	if json.Unmarshal(b, &a) != nil || a.Web == nil && a.Type != "search" {
		return nil, malformed(Brave)
	}
	if a.Web == nil {
		return nil, nil
	}
	out := make([]Result, 0, len(a.Web.Results))
	for _, r := range a.Web.Results {
		out = append(out, Result{Title: string(r.Title), URL: string(r.URL), Snippet: string(r.Description),
			Date: string(or(r.PageAge, r.Age))})
	}
	return tidy(out, k), nil
}
