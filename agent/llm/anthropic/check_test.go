package anthropic

import (
	"net"
	"testing"

	"github.com/parleybot/parley/agent/llm"
)

func TestCheck(t *testing.T) {
	srv := newServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()

	tests := []struct {
		name     string
		cfg      Config
		wantKind llm.ErrorKind // KindUnknown: no error
		wantErr  string
	}{
		{name: "ok", cfg: Config{APIKey: testKey, BaseURL: srv.AnthropicBaseURL()}},
		{
			name: "wrong key", cfg: Config{APIKey: "sk-ant-wrong-0123456789", BaseURL: srv.AnthropicBaseURL()},
			wantKind: llm.KindAuth, wantErr: "the Anthropic API key was rejected (401): invalid x-api-key",
		},
		{
			name: "base URL with /v1", cfg: Config{APIKey: testKey, BaseURL: srv.URL + "/v1"},
			wantKind: llm.KindBadRequest,
		},
		{name: "unreachable", cfg: Config{APIKey: testKey, BaseURL: closed}, wantKind: llm.KindNetwork},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := New(tc.cfg).Check(t.Context())
			if tc.wantKind == llm.KindUnknown {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			e, ok := llm.AsError(err)
			if !ok || e.Kind != tc.wantKind {
				t.Fatalf("Check = %v, want *llm.Error of kind %v", err, tc.wantKind)
			}
			if tc.wantErr != "" && e.Error() != tc.wantErr {
				t.Errorf("Error() = %q, want %q", e.Error(), tc.wantErr)
			}
		})
	}
	if r := srv.Requests()[0]; r.Method != "GET" || r.Path != "/v1/models" {
		t.Errorf("Check sent %s %s, want GET /v1/models", r.Method, r.Path)
	}
}
