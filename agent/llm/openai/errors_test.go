package openai

import (
	"testing"

	"github.com/parleybot/parley/agent/llm"
)

func TestStatusKind(t *testing.T) {
	tests := []struct {
		status         int
		typ, code, msg string
		want           llm.ErrorKind
	}{
		{401, "invalid_request_error", "invalid_api_key", "", llm.KindAuth},
		{403, "", "", "", llm.KindAuth},
		{429, "requests", "rate_limit_exceeded", "", llm.KindRateLimit},
		{429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota", llm.KindBadRequest},
		{408, "", "", "", llm.KindServer},
		{409, "", "", "", llm.KindServer},
		{500, "server_error", "", "", llm.KindServer},
		{529, "", "", "", llm.KindServer},
		{400, "invalid_request_error", "context_length_exceeded", "", llm.KindContextOverflow},
		{400, "BadRequestError", "", "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens", llm.KindContextOverflow},
		{400, "", "", "the request exceeds the available context size, try increasing it", llm.KindContextOverflow},
		{400, "invalid_request_error", "", "Invalid value for 'tools'", llm.KindBadRequest},
		{404, "invalid_request_error", "model_not_found", "", llm.KindBadRequest},
		{413, "", "", "", llm.KindBadRequest},
	}
	for _, tc := range tests {
		if got := statusKind(tc.status, tc.typ, tc.code, tc.msg); got != tc.want {
			t.Errorf("statusKind(%d, %q, %q, %q) = %v, want %v", tc.status, tc.typ, tc.code, tc.msg, got, tc.want)
		}
	}
}

// TestStreamErrorKind covers error events inside a 200 stream, whose
// shape varies between OpenAI and compatible servers.
func TestStreamErrorKind(t *testing.T) {
	tests := []struct {
		data     string
		want     llm.ErrorKind
		wantText string
	}{
		{`{"error":{"message":"The server had an error","type":"server_error","code":null}}`, llm.KindServer, "The server had an error"},
		{`{"error":{"message":"slow down","type":"tokens","code":"rate_limit_exceeded"}}`, llm.KindRateLimit, "slow down"},
		{`{"error":{"message":"too long","type":"invalid_request_error","code":"context_length_exceeded"}}`, llm.KindContextOverflow, "too long"},
		{`{"error":{"message":"bad tool","type":"invalid_request_error","code":400}}`, llm.KindBadRequest, "bad tool"},
		{`{"error":"upstream died"}`, llm.KindServer, "upstream died"},
		{`{"error":[1]}`, llm.KindServer, `{"error":[1]}`},
		{`not json`, llm.KindServer, "not json"},
	}
	for _, tc := range tests {
		kind, msg := streamErrorKind([]byte(tc.data))
		if kind != tc.want || msg != tc.wantText {
			t.Errorf("streamErrorKind(%s) = %v, %q; want %v, %q", tc.data, kind, msg, tc.want, tc.wantText)
		}
	}
}

func TestScrub(t *testing.T) {
	p := New(Config{APIKey: testKey})
	if got := llm.Scrub("Incorrect API key provided: "+testKey+".", p.endpoint.APIKey); got != "Incorrect API key provided: [redacted]." {
		t.Errorf("scrub = %q", got)
	}
}
