package mcp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleybot/parley/agent"
)

func TestStreamableHTTPServer(t *testing.T) {
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return filesServer(new(atomic.Int32)) }, nil)
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	b, errs := Connect(t.Context(), []ServerConfig{{
		Name:    "remote",
		URL:     srv.URL + "/mcp",
		Headers: map[string]string{"Authorization": "Bearer t0ken"},
	}}, nil)
	if len(errs) > 0 {
		t.Fatalf("Connect: %v", errorsText(errs))
	}
	t.Cleanup(func() { _ = b.Close() })

	out, err := toolNamed(t, b, "remote__read_file").Execute(t.Context(), agent.Caller{}, json.RawMessage(`{"path":"r.txt"}`))
	if err != nil || out != "contents of r.txt" {
		t.Errorf("Execute = %q, %v", out, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 {
		t.Fatal("no requests seen")
	}
	for i, a := range auth {
		if a != "Bearer t0ken" {
			t.Errorf("request %d: Authorization = %q", i, a)
		}
	}
}

func TestHTTPServerErrorHidesURLSecrets(t *testing.T) {
	// A server that went away: the client's error quotes the URL.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/mcp?api_key=s3cret"
	srv.Close()
	_, errs := Connect(t.Context(), []ServerConfig{{Name: "remote", URL: url}}, nil)
	if len(errs) != 1 {
		t.Fatalf("errors = %v", errs)
	}
	msg := errs[0].Error()
	if strings.Contains(msg, "s3cret") || !strings.HasPrefix(msg, `mcp server "remote": connect:`) || !strings.Contains(msg, "/mcp?…") {
		t.Errorf("error = %q", msg)
	}
}
