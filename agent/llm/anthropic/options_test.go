package anthropic

import (
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// TestHeadersAndTimeout: Config.Headers go with every request, the model
// list doctor asks for included; Config.Timeout ends a call whose answer
// stalls, as a network error the agent may retry.
func TestHeadersAndTimeout(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
		cfg   func(base string) Config
		check func(t *testing.T, srv *llmtest.Server, err error)
	}{
		{
			name:  "headers",
			reply: llmtest.Text("hi"),
			cfg: func(base string) Config {
				return Config{APIKey: testKey, BaseURL: base, Headers: map[string]string{"X-Gateway-Team": "eng", "cf-access-token": "tok-1"}}
			},
			check: func(t *testing.T, srv *llmtest.Server, err error) {
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range srv.Requests() {
					if r.Header.Get("X-Gateway-Team") != "eng" || r.Header.Get("Cf-Access-Token") != "tok-1" {
						t.Errorf("%s %s: headers %v", r.Method, r.Path, r.Header)
					}
					if r.Header.Get("Authorization") != "Bearer "+testKey {
						t.Errorf("%s %s: the key did not go with the headers", r.Method, r.Path)
					}
				}
			},
		},
		{
			name:  "timeout",
			reply: llmtest.Stall("Counting: one,"),
			cfg: func(base string) Config {
				return Config{APIKey: testKey, BaseURL: base, Timeout: 50 * time.Millisecond}
			},
			check: func(t *testing.T, _ *llmtest.Server, err error) {
				e, ok := llm.AsError(err)
				if !ok || e.Kind != llm.KindNetwork || !e.Retryable() {
					t.Fatalf("err = %v, want a retryable network *llm.Error", err)
				}
				if t.Context().Err() != nil {
					t.Fatal("the caller's context ended")
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, tc.reply)
			p := New(tc.cfg(srv.AnthropicBaseURL()))
			_, _, err := collect(p.Stream(t.Context(), hello))
			if err == nil {
				err = p.Check(t.Context())
			}
			tc.check(t, srv, err)
		})
	}
}
