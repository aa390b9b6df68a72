// Package websearchtest is a fake search service speaking SearXNG's JSON
// API (GET /search?q=…&format=json), and for the other backends Brave's
// (GET /res/v1/web/search, X-Subscription-Token) and Tavily's (POST
// /search, a bearer key): the same results in each one's shape. It can
// answer a status (429, 500, …), malformed JSON or an oversized body
// instead, once.
package websearchtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
)

// Result is one result the fake returns; Date "" is sent as null.
type Result struct {
	Title, URL, Content, Date string
}

// Fault is what the next search gets instead of results.
type Fault int

const (
	// Status answers the HTTP status given with FailNext.
	Status Fault = iota + 1
	// Malformed answers 200 with a body that is not JSON.
	Malformed
	// WrongShape answers 200 with JSON without results.
	WrongShape
	// Huge answers 200 with a body of 2 MiB.
	Huge
)

// Server is the fake; its URL is SearXNG's base URL, Brave's and
// Tavily's API base.
type Server struct {
	*httptest.Server
	// Key is the API key Brave and Tavily requests must carry.
	Key string

	mu      sync.Mutex
	results []Result
	fault   Fault
	status  int
	queries []string
}

// NewServer starts a fake answering results to every query.
func NewServer(results ...Result) *Server {
	s := &Server{Key: "test-search-key", results: results}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// SetResults replaces what every query finds.
func (s *Server) SetResults(results ...Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results = results
}

// FailNext makes the next search answer status.
func (s *Server) FailNext(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault, s.status = Status, status
}

// BreakNext makes the next search answer f.
func (s *Server) BreakNext(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault = f
}

// Queries are the queries searched, in order.
func (s *Server) Queries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.queries...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var query string
	k := 0
	var shape func([]Result, int) any
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/search":
		if r.URL.Query().Get("format") != "json" {
			http.Error(w, "format not allowed", http.StatusForbidden) // as SearXNG without json in search.formats
			return
		}
		query, shape = r.URL.Query().Get("q"), searxng
	case r.Method == http.MethodGet && r.URL.Path == "/res/v1/web/search":
		if r.Header.Get("X-Subscription-Token") != s.Key {
			http.Error(w, `{"type":"ErrorResponse"}`, http.StatusUnauthorized)
			return
		}
		query, shape = r.URL.Query().Get("q"), brave
		k, _ = strconv.Atoi(r.URL.Query().Get("count"))
	case r.Method == http.MethodPost && r.URL.Path == "/search":
		if r.Header.Get("Authorization") != "Bearer "+s.Key {
			http.Error(w, `{"detail":{"error":"Unauthorized"}}`, http.StatusUnauthorized)
			return
		}
		var body struct {
			Query      string `json:"query"`
			MaxResults int    `json:"max_results"`
		}
		if json.NewDecoder(r.Body).Decode(&body) != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		query, k, shape = body.Query, body.MaxResults, tavily
	default:
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.queries = append(s.queries, query)
	fault, status, results := s.fault, s.status, append([]Result(nil), s.results...)
	s.fault = 0
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch fault {
	case Status:
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"error":"fault"}`))
		return
	case Malformed:
		_, _ = w.Write([]byte(`{"results": [{"title": "cut off`))
		return
	case WrongShape:
		_, _ = w.Write([]byte(`{"answers": ["no results here"]}`))
		return
	case Huge:
		_, _ = w.Write([]byte(`{"results": [{"title": "` + strings.Repeat("x", 2<<20) + `"}]}`))
		return
	}
	_ = json.NewEncoder(w).Encode(shape(results, k))
}

func date(d string) any {
	if d == "" {
		return nil
	}
	return d
}

// searxng is SearXNG's answer: more than asked for, with its own fields.
func searxng(rs []Result, _ int) any {
	out := make([]map[string]any, len(rs))
	for i, r := range rs {
		out[i] = map[string]any{"url": r.URL, "title": r.Title, "content": r.Content, "engine": "duckduckgo",
			"engines": []string{"duckduckgo"}, "score": 1.0 / float64(i+1), "category": "general",
			"publishedDate": date(r.Date), "thumbnail": ""}
	}
	return map[string]any{"query": "", "number_of_results": 0, "results": out, "answers": []any{},
		"corrections": []any{}, "infoboxes": []any{}, "suggestions": []any{}, "unresponsive_engines": []any{}}
}

// brave is Brave's answer: web.results, count of them at most.
func brave(rs []Result, k int) any {
	if k > 0 && len(rs) > k {
		rs = rs[:k]
	}
	out := make([]map[string]any, len(rs))
	for i, r := range rs {
		m := map[string]any{"type": "search_result", "title": r.Title, "url": r.URL, "description": r.Content,
			"meta_url": map[string]any{"hostname": "example"}}
		if r.Date != "" {
			m["page_age"], m["age"] = r.Date, "2 days ago"
		}
		out[i] = m
	}
	return map[string]any{"type": "search", "query": map[string]any{"original": ""},
		"web": map[string]any{"type": "search", "results": out}}
}

// tavily is Tavily's answer: results, max_results of them at most.
func tavily(rs []Result, k int) any {
	if k > 0 && len(rs) > k {
		rs = rs[:k]
	}
	out := make([]map[string]any, len(rs))
	for i, r := range rs {
		m := map[string]any{"title": r.Title, "url": r.URL, "content": r.Content, "score": 0.9, "raw_content": nil}
		if r.Date != "" {
			m["published_date"] = r.Date
		}
		out[i] = m
	}
	return map[string]any{"query": "", "answer": nil, "images": []any{}, "results": out, "response_time": 0.5}
}
