package llm

import (
	"errors"
	"fmt"
	"time"
)

// ErrIncomplete means a stream ended without a final response.
var ErrIncomplete = errors.New("llm: stream ended before the response was complete")

// ErrorKind classifies provider failures once, so callers decide on retries
// without knowing the SDKs.
type ErrorKind int

const (
	KindUnknown ErrorKind = iota
	// KindAuth: the key was rejected (401/403). Never retried.
	KindAuth
	// KindRateLimit: 429. Retried after RetryAfter.
	KindRateLimit
	// KindServer: 5xx, 408, 409 or an overloaded answer. Retried.
	KindServer
	// KindNetwork: the endpoint could not be reached or the connection broke.
	KindNetwork
	// KindBadRequest: the provider refused the request (400, 404, 422).
	KindBadRequest
	// KindContextOverflow: the prompt is larger than the model's window.
	KindContextOverflow
)

func (k ErrorKind) String() string {
	switch k {
	case KindAuth:
		return "auth"
	case KindRateLimit:
		return "rate limit"
	case KindServer:
		return "server error"
	case KindNetwork:
		return "network"
	case KindBadRequest:
		return "bad request"
	case KindContextOverflow:
		return "context overflow"
	}
	return "unknown"
}

// Error is a classified provider failure. Message is the provider's own
// explanation, when it gave one; it never contains the API key.
type Error struct {
	Provider   string // display name: "OpenAI", "Anthropic"
	Kind       ErrorKind
	Status     int           // HTTP status, 0 for network failures
	URL        string        // the endpoint that failed, for base-URL mistakes
	RetryAfter time.Duration // from Retry-After / retry-after-ms, 0 if absent
	Message    string
	Err        error
}

func (e *Error) Error() string {
	switch e.Kind {
	case KindAuth:
		return fmt.Sprintf("the %s API key was rejected (%d)%s", e.Provider, e.Status, suffix(e.Message))
	case KindNetwork:
		if e.Message != "" { // the connection broke after the answer began
			return fmt.Sprintf("%s at %s: %s: %v", e.Provider, e.URL, e.Message, e.Err)
		}
		return fmt.Sprintf("could not reach %s at %s: %v", e.Provider, e.URL, e.Err)
	case KindBadRequest:
		if e.Status == 404 {
			return fmt.Sprintf("%s answered 404 at %s: check the base URL and the model name%s", e.Provider, e.URL, suffix(e.Message))
		}
	}
	if e.Status != 0 {
		return fmt.Sprintf("%s %s (%d)%s", e.Provider, e.Kind, e.Status, suffix(e.Message))
	}
	return fmt.Sprintf("%s %s%s", e.Provider, e.Kind, suffix(e.Message))
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the same request may succeed later.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case KindRateLimit, KindServer, KindNetwork:
		return true
	}
	return false
}

func suffix(msg string) string {
	if msg == "" {
		return ""
	}
	return ": " + msg
}

// AsError returns the *Error in err's chain, if any.
func AsError(err error) (*Error, bool) {
	return errors.AsType[*Error](err)
}
