package inbound

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestSharedListener: two adapters' endpoints answer on one listener, a
// path nobody registered is 404, and the server stops cleanly with ctx.
func TestSharedListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(ln.Addr().String(), slog.New(slog.DiscardHandler))
	s.Handle("/slack/events", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "slack") }))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.ServeOn(ctx, ln) }()
	// Registered while serving, as an adapter whose Run starts later does.
	s.Handle("/telegram", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "telegram") }))

	for _, tt := range []struct {
		path string
		code int
		body string
	}{
		{"/slack/events", http.StatusOK, "slack"},
		{"/telegram", http.StatusOK, "telegram"},
		{"/elsewhere", http.StatusNotFound, "404 page not found\n"},
	} {
		resp, err := http.Post("http://"+ln.Addr().String()+tt.path, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.code || string(b) != tt.body {
			t.Errorf("%s: %d %q, want %d %q", tt.path, resp.StatusCode, b, tt.code, tt.body)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve after ctx ended: %v", err)
	}
}

func TestServeBusyAddress(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	err = New(busy.Addr().String(), nil).Serve(t.Context())
	if err == nil || !strings.Contains(err.Error(), "cannot listen on "+busy.Addr().String()+" (http.listen)") {
		t.Fatalf("Serve on a busy address: %v", err)
	}
}
