package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"testing"
)

func TestModelClientsFor(t *testing.T) {
	m := newModelClients(nil)
	if m.plain == m.https {
		t.Fatal("one client for both kinds of server")
	}
	for _, tc := range []struct {
		base  string
		plain bool
	}{
		{"http://localhost:11434/v1", true},
		{"HTTP://gpu-box.lan:8000/v1", true},
		{"https://api.openai.com/v1", false},
		{"", false}, // the provider's own API
		{"http:", false},
		{"httpx://odd", false},
	} {
		if got := m.For(tc.base) == m.plain; got != tc.plain {
			t.Errorf("For(%q) is the plain-HTTP client: %v, want %v", tc.base, got, tc.plain)
		}
	}
}

// TestTrimClosesIdleLocalModelConnections: a trim closes the idle
// connections to a model server over plain HTTP, so the next request dials
// again, and keeps those to a server over HTTPS, which the next request
// reuses.
func TestTrimClosesIdleLocalModelConnections(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("{}")) })
	local := httptest.NewServer(ok)
	defer local.Close()
	remote := httptest.NewTLSServer(ok)
	defer remote.Close()
	m := newModelClients(nil)
	m.https = remote.Client() // trusts the test server's certificate
	reused := func(c *http.Client, url string) bool {
		t.Helper()
		var got bool
		trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { got = i.Reused }}
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), http.MethodGet, url, nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return got
	}
	reused(m.For(local.URL), local.URL)
	reused(m.For(remote.URL), remote.URL)
	if !reused(m.For(local.URL), local.URL) {
		t.Fatal("the plain-HTTP client did not keep its connection between requests: the test proves nothing")
	}
	newTrimmer(nil, m, slog.New(slog.DiscardHandler)).trim(t.Context())
	if reused(m.For(local.URL), local.URL) {
		t.Error("after a trim, the idle connection to the local server was reused: not closed")
	}
	if !reused(m.For(remote.URL), remote.URL) {
		t.Error("after a trim, the connection to the HTTPS server was dialled again: closed")
	}
}
