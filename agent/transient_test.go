package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/parleybot/parley/agent/llm"
)

// flagged is a tool's own classification.
type flagged struct{ transient bool }

func (f flagged) Error() string   { return "HTTP 503 Service Unavailable, timed out, EOF" }
func (f flagged) Transient() bool { return f.transient }

func TestTransient(t *testing.T) {
	opErr := func(errno syscall.Errno) error {
		return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errno)}
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"the provider rate-limited", fmt.Errorf("model call: %w", &llm.Error{Kind: llm.KindRateLimit, Status: 429}), true},
		{"the provider's server failed", &llm.Error{Kind: llm.KindServer, Status: 503}, true},
		{"the provider unreachable", &llm.Error{Kind: llm.KindNetwork}, true},
		{"the provider refused the request", &llm.Error{Kind: llm.KindBadRequest, Status: 400, Message: "HTTP 503 timed out"}, false},
		{"a deadline", fmt.Errorf("fetch: %w", context.DeadlineExceeded), true},
		{"cancelled by the person", context.Canceled, false},
		{"connection refused", opErr(syscall.ECONNREFUSED), true},
		{"connection reset", fmt.Errorf("read: %w", opErr(syscall.ECONNRESET)), true},
		{"broken pipe", opErr(syscall.EPIPE), true},
		{"host unreachable", opErr(syscall.EHOSTUNREACH), true},
		{"permission denied", opErr(syscall.EACCES), false},
		{"a resolver timeout", &net.DNSError{Err: "i/o timeout", Name: "x", IsTimeout: true}, true},
		{"a name that does not exist", &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}, false},
		{"an HTTP connection closed early", &url.Error{Op: "Get", URL: "http://x", Err: io.EOF}, true},
		{"a body cut short", &url.Error{Op: "Get", URL: "http://x", Err: io.ErrUnexpectedEOF}, true},
		{"EOF from a file", fmt.Errorf("read config: %w", io.EOF), false},
		{"words only: 503", errors.New("HTTP 503 Service Unavailable"), false},
		{"words only: line 512", errors.New("syntax error at line 512"), false},
		{"words only: timed out", errors.New("test timed out after 30s"), false},
		{"a tool says transient", fmt.Errorf("web_fetch: %w", flagged{true}), true},
		{"a tool says not, whatever it wraps", flagged{false}, false},
	}
	for _, tt := range tests {
		if got := Transient(tt.err); got != tt.want {
			t.Errorf("%s: Transient(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
