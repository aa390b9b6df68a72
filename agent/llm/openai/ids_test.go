package openai

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestCallsWithoutIDs: a compatible server that names no tool call (as
// some local ones do) gets each call an id of its own, so each result
// can be told apart from the other's.
func TestCallsWithoutIDs(t *testing.T) {
	const stream = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[` +
		`{"index":0,"type":"function","function":{"name":"search","arguments":"{}"}},` +
		`{"index":1,"type":"function","function":{"name":"search","arguments":"{}"}}]},"finish_reason":null}]}

data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]

`
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, stream)
	}))
	t.Cleanup(hs.Close)
	_, resp, err := collect(New(Config{BaseURL: hs.URL + "/v1"}).Stream(t.Context(), hello))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 2 {
		t.Fatalf("calls %+v, want 2", resp.ToolCalls)
	}
	a, b := resp.ToolCalls[0].ID, resp.ToolCalls[1].ID
	if a == "" || b == "" || a == b || len(a) > 40 {
		t.Errorf("ids %q and %q: want two distinct ones every provider takes", a, b)
	}
}
