package llmtest

import (
	"io"
	"sync"
	"testing"
)

// TestAnswered: the hook hears of each complete streamed answer, by the
// time the client has read it, and of nothing else.
func TestAnswered(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := NewServer(WithAnswered(func(r Request) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, r.LastUserText())
	}))
	t.Cleanup(srv.Close)
	srv.Enqueue(Text("fine"), Status(500), Drop("cut"))
	for range 3 {
		resp := post(t, srv, "/v1/chat/completions", streamBody)
		io.Copy(io.Discard, resp.Body) // the dropped one ends early
		resp.Body.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "hi" {
		t.Fatalf("answered %q, want only the complete answer to \"hi\"", got)
	}
}
