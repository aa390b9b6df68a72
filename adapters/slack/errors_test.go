package slack

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/parleybot/parley/chat"
)

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want time.Duration
		ok   bool
	}{
		{"429 with Retry-After", &slack.RateLimitedError{RetryAfter: 30 * time.Second}, 30 * time.Second, true},
		{"429 with Retry-After 0", &slack.RateLimitedError{}, time.Second, true},
		{"wrapped 429", fmt.Errorf("post: %w", &slack.RateLimitedError{RetryAfter: 7 * time.Second}), 7 * time.Second, true},
		{"ok:false ratelimited", slack.SlackErrorResponse{Err: "ratelimited"}, time.Second, true},
		{"ok:false rate_limited", slack.SlackErrorResponse{Err: "rate_limited"}, time.Second, true},
		{"429 without header", slack.StatusCodeError{Code: http.StatusTooManyRequests, Status: "429 Too Many Requests"}, time.Second, true},
		{"503", slack.StatusCodeError{Code: 503, Status: "503 Service Unavailable"}, time.Second, true},
		{"404", slack.StatusCodeError{Code: 404, Status: "404 Not Found"}, 0, false},
		{"channel_not_found", slack.SlackErrorResponse{Err: "channel_not_found"}, 0, false},
		{"nil", nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := retryAfter(tt.err)
			if got != tt.want || ok != tt.ok {
				t.Errorf("retryAfter = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestWrap(t *testing.T) {
	rl := &slack.RateLimitedError{RetryAfter: 30 * time.Second}
	tests := []struct {
		name     string
		method   string
		err      error
		retry    time.Duration // > 0: a *chat.RateLimitError with it
		is       []error
		scope    string // a *ScopeError naming it
		mentions string
	}{
		{name: "rate limit", method: "chat.update", err: rl, retry: 30 * time.Second, is: []error{rl}, mentions: "chat.update"},
		{name: "ratelimited body", method: "chat.postMessage", err: slack.SlackErrorResponse{Err: "ratelimited"}, retry: time.Second},
		{name: "5xx", method: "chat.postMessage", err: slack.StatusCodeError{Code: 502, Status: "502 Bad Gateway"}, retry: time.Second},
		{name: "invalid_auth", method: "auth.test", err: slack.SlackErrorResponse{Err: "invalid_auth"}, is: []error{ErrAuth, chat.ErrAuth}, mentions: "slack.bot_token"},
		{name: "not_authed", method: "chat.postMessage", err: slack.SlackErrorResponse{Err: "not_authed"}, is: []error{ErrAuth, chat.ErrAuth}},
		{name: "account_inactive", method: "chat.postMessage", err: slack.SlackErrorResponse{Err: "account_inactive"}, is: []error{ErrAuth, chat.ErrAuth}},
		{name: "missing_scope with needed", method: "chat.startStream", err: slack.SlackErrorResponse{Err: "missing_scope", Needed: "assistant:write", Provided: "chat:write"}, scope: "assistant:write", mentions: "assistant:write"},
		{name: "missing_scope without needed", method: "users.info", err: slack.SlackErrorResponse{Err: "missing_scope"}, scope: "users:read", mentions: "users:read"},
		{name: "invalid_blocks", method: "chat.postMessage", err: slack.SlackErrorResponse{Err: "invalid_blocks"}, is: []error{chat.ErrFormatRejected}},
		{name: "invalid_blocks_format", method: "chat.update", err: slack.SlackErrorResponse{Err: "invalid_blocks_format"}, is: []error{chat.ErrFormatRejected}},
		{name: "other", method: "chat.update", err: slack.SlackErrorResponse{Err: "message_not_found"}, mentions: "message_not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := wrap(tt.method, tt.err)
			if err == nil {
				t.Fatal("wrap returned nil")
			}
			d, limited := chat.RetryAfter(err)
			if tt.retry > 0 != limited || d != tt.retry {
				t.Errorf("chat.RetryAfter = %v, %v; want %v", d, limited, tt.retry)
			}
			if e, ok := errors.AsType[slack.SlackErrorResponse](tt.err); ok {
				if got, ok := errors.AsType[slack.SlackErrorResponse](err); !ok || got.Err != e.Err {
					t.Errorf("the Slack error %q is not kept: %v", e.Err, err)
				}
			}
			for _, target := range tt.is {
				if !errors.Is(err, target) {
					t.Errorf("%v is not %v", err, target)
				}
			}
			if se, ok := errors.AsType[*ScopeError](err); (tt.scope != "") != ok || ok && se.Scope != tt.scope {
				t.Errorf("ScopeError = %+v, %v; want scope %q", se, ok, tt.scope)
			}
			if !strings.Contains(err.Error(), tt.mentions) {
				t.Errorf("%q does not mention %q", err, tt.mentions)
			}
		})
	}
	if wrap("x", nil) != nil {
		t.Error("wrap(nil) is not nil")
	}
	already := &chat.RateLimitError{RetryAfter: time.Minute}
	if wrap("x", already) != already {
		t.Error("an existing RateLimitError is wrapped again")
	}
}
