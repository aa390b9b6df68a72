package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestStatusKind(t *testing.T) {
	tests := []struct {
		status                int
		outOfCredit, overflow bool
		want                  ErrorKind
	}{
		{401, false, false, KindAuth},
		{403, false, false, KindAuth},
		{401, true, true, KindAuth}, // a rejected key says nothing about credit
		{429, false, false, KindRateLimit},
		{429, true, false, KindBadRequest}, // waiting does not cure an empty account
		{402, true, false, KindBadRequest},
		{408, false, false, KindServer},
		{409, false, false, KindServer},
		{500, false, false, KindServer},
		{529, false, false, KindServer},
		{500, true, false, KindBadRequest},
		{500, false, true, KindServer}, // overflow only refines a refusal
		{400, false, true, KindContextOverflow},
		{413, false, true, KindContextOverflow},
		{400, true, true, KindBadRequest},
		{400, false, false, KindBadRequest},
		{404, false, false, KindBadRequest},
		{422, false, false, KindBadRequest},
	}
	for _, tc := range tests {
		if got := StatusKind(tc.status, tc.outOfCredit, tc.overflow); got != tc.want {
			t.Errorf("StatusKind(%d, %v, %v) = %v, want %v", tc.status, tc.outOfCredit, tc.overflow, got, tc.want)
		}
	}
}

func TestIsOverflow(t *testing.T) {
	phrases := []string{"prompt is too long", "context window"}
	tests := []struct {
		msg  string
		want bool
	}{
		{"prompt is too long: 210000 tokens > 200000 maximum", true},
		{"Prompt Is Too Long", true},
		{"exceeds the CONTEXT WINDOW of this model", true},
		{"messages: text content blocks must be non-empty", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := IsOverflow(tc.msg, phrases...); got != tc.want {
			t.Errorf("IsOverflow(%q) = %v, want %v", tc.msg, got, tc.want)
		}
	}
	if IsOverflow("context window") {
		t.Error("IsOverflow without phrases = true, want false")
	}
}

// sdkError stands for an SDK's own error type in Classify's tests.
type sdkError struct{ reply Reply }

func (e *sdkError) Error() string { return "sdk: " + e.reply.Message }

func readSDKError(err error) (Reply, bool) {
	if e, ok := errors.AsType[*sdkError](err); ok {
		return e.reply, true
	}
	return Reply{}, false
}

func TestClassify(t *testing.T) {
	const endpoint = "https://api.example/v1/chat"
	const key = "sk-test-0123456789"
	ep := Endpoint{Provider: "Example", BaseURL: "https://api.example/v1", APIKey: key, ReadError: readSDKError}
	answer := func(status int, header ...string) *http.Response {
		h := http.Header{}
		for i := 0; i+1 < len(header); i += 2 {
			h.Set(header[i], header[i+1])
		}
		return &http.Response{StatusCode: status, Header: h}
	}
	refused := &url.Error{Op: "Post", URL: endpoint, Err: syscall.ECONNREFUSED}

	tests := []struct {
		name    string
		attempt Attempt
		err     error
		want    Error // Err is compared with errors.Is against wantErr
		wantErr error
	}{
		{
			name:    "error answer the SDK read",
			attempt: Attempt{URL: endpoint, Resp: answer(429)},
			err:     &sdkError{Reply{Status: 429, Kind: KindRateLimit, Message: "slow down", Response: answer(429, "Retry-After", "2")}},
			want:    Error{Kind: KindRateLimit, Status: 429, URL: endpoint, RetryAfter: 2 * time.Second, Message: "slow down"},
		},
		{
			name:    "error page without the provider's JSON",
			attempt: Attempt{URL: endpoint, Resp: answer(502)},
			err:     &sdkError{Reply{Status: 502, Kind: KindServer}},
			want:    Error{Kind: KindServer, Status: 502, URL: endpoint, Message: "Bad Gateway"},
		},
		{
			name:    "error event inside a 200 stream",
			attempt: Attempt{URL: endpoint, Resp: answer(200)},
			err:     &sdkError{Reply{Kind: KindServer, Message: "Overloaded"}},
			want:    Error{Kind: KindServer, URL: endpoint, Message: "Overloaded"},
		},
		{
			name:    "the key is scrubbed from the message",
			attempt: Attempt{URL: endpoint, Resp: answer(401)},
			err:     &sdkError{Reply{Status: 401, Kind: KindAuth, Message: "bad key " + key}},
			want:    Error{Kind: KindAuth, Status: 401, URL: endpoint, Message: "bad key [redacted]"},
		},
		{
			name:    "error answer whose body broke",
			attempt: Attempt{URL: endpoint, Resp: answer(503, "Retry-After-Ms", "1500")},
			err:     io.ErrUnexpectedEOF,
			want:    Error{Kind: KindServer, Status: 503, URL: endpoint, RetryAfter: 1500 * time.Millisecond, Message: "Service Unavailable"},
			wantErr: io.ErrUnexpectedEOF,
		},
		{
			name:    "stream cut midway",
			attempt: Attempt{URL: endpoint, Resp: answer(200)},
			err:     io.ErrUnexpectedEOF,
			want:    Error{Kind: KindNetwork, URL: endpoint},
			wantErr: io.ErrUnexpectedEOF,
		},
		{
			name:    "stream that does not decode",
			attempt: Attempt{URL: endpoint, Resp: answer(200)},
			err:     &json.SyntaxError{},
			want:    Error{Kind: KindUnknown, URL: endpoint, Message: "the server sent a malformed stream: "},
		},
		{
			name:    "connection refused",
			attempt: Attempt{URL: endpoint},
			err:     refused,
			want:    Error{Kind: KindNetwork, URL: endpoint},
			wantErr: syscall.ECONNREFUSED,
		},
		{
			name: "never sent",
			err:  errors.New("bad base URL"),
			want: Error{Kind: KindBadRequest, URL: ep.BaseURL, Message: "bad base URL"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ep.Classify(t.Context(), &tc.attempt, tc.err)
			e, ok := AsError(err)
			if !ok {
				t.Fatalf("Classify = %v, want an *Error", err)
			}
			got := *e
			got.Err = nil
			tc.want.Provider = "Example"
			if got != tc.want {
				t.Errorf("Classify =\n %+v\nwant\n %+v", got, tc.want)
			}
			if want := cmp.Or(tc.wantErr, tc.err); !errors.Is(e.Err, want) {
				t.Errorf("Err = %v, want it to wrap %v", e.Err, want)
			}
			if _, isURL := errors.AsType[*url.Error](e.Err); isURL {
				t.Errorf("Err = %v repeats the URL", e.Err)
			}
		})
	}
}

func TestClassifyCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	ep := Endpoint{Provider: "Example", ReadError: readSDKError}
	a := Attempt{URL: "https://api.example/v1/chat"}
	if err := ep.Classify(ctx, &a, io.ErrUnexpectedEOF); !errors.Is(err, context.Canceled) {
		t.Errorf("Classify after cancel = %v, want context.Canceled", err)
	}
}

func TestClassifyWithoutReadError(t *testing.T) {
	ep := Endpoint{Provider: "Example"}
	a := Attempt{URL: "https://api.example/v1/chat", Resp: &http.Response{StatusCode: 401, Header: http.Header{}}}
	e, ok := AsError(ep.Classify(t.Context(), &a, errors.New("401")))
	if !ok || e.Kind != KindAuth || !strings.Contains(e.Error(), "rejected (401)") {
		t.Errorf("Classify = %v, want the wire's 401 as an auth error", e)
	}
}
