package agent

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"syscall"

	"github.com/parleybot/parley/agent/llm"
)

// TransientError is an error that knows whether the environment caused it.
// A tool whose failures only it can classify (web_fetch's HTTP status, the
// shell's exit status) returns one; its answer wins over everything
// Transient would read from the types it wraps.
type TransientError interface {
	error
	Transient() bool
}

// Transient reports whether err is a failure of the environment — a rate
// limit, a server's outage, a timeout, a dropped or refused connection —
// rather than of what was asked. It reads the error's types and the
// provider's status, never its words: a tool's output that says "line
// 512", "EOF" or "timed out" is the tool's output, not the network's.
// Learning from use counts only the other failures against a run
// (docs/evolution.md).
func Transient(err error) bool {
	if err == nil {
		return false
	}
	if t, ok := errors.AsType[TransientError](err); ok {
		return t.Transient()
	}
	if e, ok := llm.AsError(err); ok {
		return e.Retryable()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	if dns, ok := errors.AsType[*net.DNSError](err); ok {
		// A name that does not exist is the caller's mistake; a resolver
		// that timed out or failed for now is not.
		return dns.IsTimeout || dns.IsTemporary
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return true
	}
	if errno, ok := errors.AsType[syscall.Errno](err); ok {
		switch errno {
		case syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE,
			syscall.ENETUNREACH, syscall.ENETDOWN, syscall.EHOSTUNREACH, syscall.ETIMEDOUT:
			return true
		}
	}
	// An HTTP request whose connection ended before its answer did: the
	// server or something between dropped it. EOF elsewhere (a file read
	// short) is no sign of the network, so only the transport's counts.
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return errors.Is(ue.Err, io.EOF) || errors.Is(ue.Err, io.ErrUnexpectedEOF)
	}
	return false
}
