package websearch_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/tools/websearch"
	"github.com/parleybot/parley/agent/tools/websearch/websearchtest"
)

var fakeResults = []websearchtest.Result{
	{Title: "Parley 1.4 released", URL: "https://parley.example/blog/1.4", Content: "Web search, voice notes and more.", Date: "2026-11-30T09:00:00"},
	{Title: "Parley on <b>GitHub</b>", URL: "https://github.com/parleybot/parley", Content: "A self-hosted chat agent &amp; more."},
	{Title: "Parley docs", URL: "https://parley.example/docs", Content: "Install, configure, run."},
}

// backends are the four backends, each against fake.
func backends(t *testing.T, fake *websearchtest.Server) map[string]websearch.Backend {
	t.Helper()
	out := map[string]websearch.Backend{}
	for _, c := range []websearch.Config{
		{Backend: websearch.SearXNG, URL: fake.URL},
		{Backend: websearch.Brave, URL: fake.URL, APIKey: fake.Key},
		{Backend: websearch.Tavily, URL: fake.URL + "/", APIKey: fake.Key},
		{Backend: websearch.Template, URLTemplate: fake.URL + "/search?format=json&q={query}&n={k}"},
	} {
		b, err := websearch.NewBackend(c)
		if err != nil {
			t.Fatalf("%s: %v", c.Backend, err)
		}
		out[c.Backend] = b
	}
	return out
}

// TestBackends: each backend asks the fake in its own protocol and reads
// the results: title, URL, the date when known (as a day), the snippet as
// plain text; at most k.
func TestBackends(t *testing.T) {
	fake := websearchtest.NewServer(fakeResults...)
	defer fake.Close()
	for name, b := range backends(t, fake) {
		t.Run(name, func(t *testing.T) {
			got, err := b.Search(t.Context(), "parley release notes", 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 {
				t.Fatalf("%d results, want 2: %+v", len(got), got)
			}
			want0 := websearch.Result{Title: "Parley 1.4 released", URL: "https://parley.example/blog/1.4", Date: "2026-11-30", Snippet: "Web search, voice notes and more."}
			if got[0] != want0 {
				t.Errorf("first result %+v, want %+v", got[0], want0)
			}
			want1 := websearch.Result{Title: "Parley on GitHub", URL: "https://github.com/parleybot/parley", Snippet: "A self-hosted chat agent & more."}
			if got[1] != want1 {
				t.Errorf("second result %+v, want %+v", got[1], want1)
			}
			if q := fake.Queries(); q[len(q)-1] != "parley release notes" {
				t.Errorf("the fake was asked %q", q)
			}
			if e := b.Endpoint("a b&c", 2); !strings.HasPrefix(e, fake.URL) || !strings.Contains(e, "a+b%26c") || strings.Contains(e, fake.Key) {
				t.Errorf("endpoint %q: want the fake's URL with the query escaped, never the key", e)
			}
		})
	}
}

// TestBackendFaults: what a backend says when the service fails it; a
// rate limit or an outage is the environment's (agent.Transient); no
// error quotes the key or the request URL.
func TestBackendFaults(t *testing.T) {
	fake := websearchtest.NewServer(fakeResults...)
	defer fake.Close()
	tests := []struct {
		name      string
		fault     func()
		want      string
		transient bool
	}{
		{"429", func() { fake.FailNext(http.StatusTooManyRequests) }, "HTTP 429: it is rate limiting", true},
		{"500", func() { fake.FailNext(http.StatusInternalServerError) }, "HTTP 500: the search service failed", true},
		{"403", func() { fake.FailNext(http.StatusForbidden) }, "HTTP 403: it refused the request", false},
		{"malformed JSON", func() { fake.BreakNext(websearchtest.Malformed) }, "answered something other than its JSON results", false},
		{"JSON without results", func() { fake.BreakNext(websearchtest.WrongShape) }, "answered something other than its JSON results", false},
		{"too large", func() { fake.BreakNext(websearchtest.Huge) }, "answered more than 1048576 bytes", false},
	}
	for name, b := range backends(t, fake) {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				tt.fault()
				_, err := b.Search(t.Context(), "q", 3)
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v, want %q", err, tt.want)
				}
				if agent.Transient(err) != tt.transient {
					t.Errorf("transient %v, want %v", agent.Transient(err), tt.transient)
				}
				if strings.Contains(err.Error(), fake.URL) {
					t.Errorf("the error quotes the URL: %v", err)
				}
			})
		}
	}
}

// TestBackendKeys: a wrong key is refused and said so; the key is never
// in an error, not even a template's whose URL carries it.
func TestBackendKeys(t *testing.T) {
	fake := websearchtest.NewServer(fakeResults...)
	defer fake.Close()
	for _, c := range []websearch.Config{
		{Backend: websearch.Brave, URL: fake.URL, APIKey: "wrong-key-123"},
		{Backend: websearch.Tavily, URL: fake.URL, APIKey: "wrong-key-123"},
	} {
		b, err := websearch.NewBackend(c)
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.Search(t.Context(), "q", 3)
		var se *websearch.StatusError
		if !errors.As(err, &se) || se.Code != http.StatusUnauthorized || !strings.Contains(err.Error(), "wrong API key") {
			t.Errorf("%s: error %v, want a 401 saying the key may be wrong", c.Backend, err)
		}
		if strings.Contains(err.Error(), "wrong-key-123") {
			t.Errorf("%s: the error quotes the key: %v", c.Backend, err)
		}
	}
	fake.Close() // nothing listens: the client's error would quote the URL
	b, err := websearch.NewBackend(websearch.Config{Backend: websearch.Template, URLTemplate: fake.URL + "/s?key=secret-in-url-42&q={query}"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	if _, err := b.Search(ctx, "q", 3); err == nil || strings.Contains(err.Error(), "secret-in-url-42") {
		t.Errorf("error %v: want one that does not quote the URL", err)
	}
}

// TestNewBackendRefuses: a backend without what it needs is refused, and
// says what is missing.
func TestNewBackendRefuses(t *testing.T) {
	for _, tt := range []struct {
		c    websearch.Config
		want string
	}{
		{websearch.Config{}, "no backend configured"},
		{websearch.Config{Backend: "google"}, `unknown backend "google"`},
		{websearch.Config{Backend: websearch.SearXNG}, "needs the URL"},
		{websearch.Config{Backend: websearch.SearXNG, URL: "searx.lan"}, "not an http(s) URL"},
		{websearch.Config{Backend: websearch.Brave}, "needs an API key"},
		{websearch.Config{Backend: websearch.Tavily}, "needs an API key"},
		{websearch.Config{Backend: websearch.Template}, "needs url_template"},
		{websearch.Config{Backend: websearch.Template, URLTemplate: "https://s.example/?q=x"}, "must hold {query}"},
		{websearch.Config{Backend: websearch.Template, URLTemplate: "file:///{query}"}, "not an http(s) URL"},
	} {
		if _, err := websearch.NewBackend(tt.c); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.c, err, tt.want)
		}
	}
}

// TestEndpointHidesCredentials: the request carries a template's {key}
// and a base URL's credentials; the endpoint an approval shows carries
// neither, only where the query goes and the query.
func TestEndpointHidesCredentials(t *testing.T) {
	var mu sync.Mutex
	var got []*http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r)
		mu.Unlock()
		w.Write([]byte(`{"results":[]}`))
	}))
	defer srv.Close()
	withUser := strings.Replace(srv.URL, "http://", "http://searx:pw-secret-1@", 1)
	for _, tt := range []struct {
		c    websearch.Config
		sent func(r *http.Request) bool
	}{
		{websearch.Config{Backend: websearch.Template, URLTemplate: srv.URL + "/api?key={key}&q={query}", APIKey: "tmpl-secret-2"},
			func(r *http.Request) bool {
				return r.URL.Query().Get("key") == "tmpl-secret-2" && r.Header.Get("Authorization") == ""
			}},
		{websearch.Config{Backend: websearch.Template, URLTemplate: srv.URL + "/api?q={query}", APIKey: "tmpl-secret-2"},
			func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer tmpl-secret-2" }},
		{websearch.Config{Backend: websearch.SearXNG, URL: withUser},
			func(r *http.Request) bool { u, p, ok := r.BasicAuth(); return ok && u == "searx" && p == "pw-secret-1" }},
	} {
		b, err := websearch.NewBackend(tt.c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Search(t.Context(), "the query", 3); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		r := got[len(got)-1]
		mu.Unlock()
		if r.URL.Query().Get("q") != "the query" || !tt.sent(r) {
			t.Errorf("%s: the request was %s %v", tt.c.Backend, r.URL, r.Header)
		}
		e := b.Endpoint("the query", 3)
		if strings.Contains(e, "secret") || !strings.Contains(e, "q=the+query") {
			t.Errorf("%s: endpoint %q: want the query, no credentials", tt.c.Backend, e)
		}
	}
	if _, err := websearch.NewBackend(websearch.Config{Backend: websearch.Template, URLTemplate: srv.URL + "/?k={key}&q={query}"}); err == nil {
		t.Error("a template placing {key} without a key was taken")
	}
}
