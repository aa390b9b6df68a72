package anthropic

import (
	"testing"

	"github.com/parleybot/parley/agent/llm"

	"github.com/anthropics/anthropic-sdk-go/v2/shared"
)

func TestStatusKind(t *testing.T) {
	tests := []struct {
		status int
		typ    shared.ErrorType
		msg    string
		want   llm.ErrorKind
	}{
		{401, "authentication_error", "invalid x-api-key", llm.KindAuth},
		{403, "permission_error", "", llm.KindAuth},
		{429, "rate_limit_error", "", llm.KindRateLimit},
		{402, "billing_error", "Your credit balance is too low", llm.KindBadRequest},
		{408, "", "", llm.KindServer},
		{409, "", "", llm.KindServer},
		{500, "api_error", "", llm.KindServer},
		{529, "overloaded_error", "Overloaded", llm.KindServer},
		{400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum", llm.KindContextOverflow},
		{400, "invalid_request_error", "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000", llm.KindContextOverflow},
		{400, "invalid_request_error", "messages: text content blocks must be non-empty", llm.KindBadRequest},
		{404, "not_found_error", "model: claude-nope", llm.KindBadRequest},
		{413, "request_too_large", "", llm.KindBadRequest},
	}
	for _, tc := range tests {
		if got := statusKind(tc.status, tc.typ, tc.msg); got != tc.want {
			t.Errorf("statusKind(%d, %q, %q) = %v, want %v", tc.status, tc.typ, tc.msg, got, tc.want)
		}
	}
}

// TestTypeKind covers error events inside a 200 stream.
func TestTypeKind(t *testing.T) {
	tests := []struct {
		typ  shared.ErrorType
		msg  string
		want llm.ErrorKind
	}{
		{"overloaded_error", "Overloaded", llm.KindServer},
		{"api_error", "Internal server error", llm.KindServer},
		{"timeout_error", "", llm.KindServer},
		{"rate_limit_error", "", llm.KindRateLimit},
		{"authentication_error", "", llm.KindAuth},
		{"invalid_request_error", "prompt is too long: 1 tokens > 0 maximum", llm.KindContextOverflow},
		{"invalid_request_error", "bad", llm.KindBadRequest},
		{"billing_error", "", llm.KindBadRequest},
		{"something_new", "", llm.KindServer},
	}
	for _, tc := range tests {
		if got := typeKind(tc.typ, tc.msg); got != tc.want {
			t.Errorf("typeKind(%q, %q) = %v, want %v", tc.typ, tc.msg, got, tc.want)
		}
	}
}

func TestScrub(t *testing.T) {
	p := New(Config{APIKey: testKey})
	if got := llm.Scrub("invalid x-api-key: "+testKey+".", p.endpoint.APIKey); got != "invalid x-api-key: [redacted]." {
		t.Errorf("scrub = %q", got)
	}
}
