package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Endpoint is a provider's API as its errors describe it. Every failure of
// a provider goes through its Endpoint, so all providers report alike:
// cancellation as the context's error, anything else as an *Error with the
// key scrubbed out.
type Endpoint struct {
	Provider string // display name: "OpenAI", "Anthropic"
	BaseURL  string // shown when the SDK refused to send at all
	APIKey   string // scrubbed from messages: some servers echo the key they refused
	// ReadError reads err as one of the SDK's own error types, which carry
	// what the server said, and reports false for any other error. It is
	// the one part of classification that differs between providers.
	ReadError func(err error) (Reply, bool)
}

// Reply is what a provider's SDK decoded from a failed call: an error
// answer, or an error event inside a 200 stream.
type Reply struct {
	Status  int       // HTTP status of an error answer; 0 for an error event in a stream
	Kind    ErrorKind // as the provider classifies it (see StatusKind)
	Message string    // the provider's own explanation, if any
	// Response is the error answer, if the SDK kept it: its Retry-After
	// headers say how long to wait.
	Response *http.Response
}

// Classify turns err, the failure of the call a observed, into an *Error,
// or into the context's error when the caller cancelled: a cancelled call
// is not a failure to retry or report. What ReadError does not recognise
// is told apart by what a saw on the wire, which the SDK's error alone
// cannot say (a refused connection from a stream cut midway).
func (ep Endpoint) Classify(ctx context.Context, a *Attempt, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	e := &Error{Provider: ep.Provider, URL: a.URL, Err: err}
	r, known := ep.read(err)
	switch {
	case known:
		// An error page that is not the provider's JSON (a proxy's HTML, a
		// plain-text 404 from a server without the API's routes) comes
		// without a message: the status text says more than nothing.
		e.Status, e.Kind = r.Status, r.Kind
		e.Message = cmp.Or(r.Message, http.StatusText(r.Status))
		if r.Response != nil {
			e.RetryAfter = RetryAfter(r.Response.Header, time.Now())
		}
	case a.Resp != nil && a.Resp.StatusCode >= 400:
		// An error answer whose body broke while the SDK read it.
		e.Status, e.Message = a.Resp.StatusCode, http.StatusText(a.Resp.StatusCode)
		e.Kind = StatusKind(a.Resp.StatusCode, false, false)
		e.RetryAfter = RetryAfter(a.Resp.Header, time.Now())
	case a.Resp != nil:
		// The answer had started: its body failed while being read.
		if isDecodeError(err) {
			e = ep.malformed(a, err)
			break
		}
		e.Kind, e.Err = KindNetwork, fmt.Errorf("connection lost mid-stream: %w", err)
	case a.URL != "":
		// Sent but never answered: refused, DNS, reset, TLS. *url.Error
		// repeats the URL, which Error already shows.
		e.Kind = KindNetwork
		if ue, ok := errors.AsType[*url.Error](err); ok {
			e.Err = ue.Err
		}
	default:
		// Never sent: the SDK refused the configuration (a malformed base URL).
		e.Kind, e.URL, e.Message = KindBadRequest, ep.BaseURL, err.Error()
	}
	e.Message = Scrub(e.Message, ep.APIKey)
	return e
}

func (ep Endpoint) read(err error) (Reply, bool) {
	if ep.ReadError == nil {
		return Reply{}, false
	}
	return ep.ReadError(err)
}

// truncated is the error of a stream that ended cleanly but before the
// provider said the answer was complete: a proxy or server that gave up
// mid-answer. Retrying is the cure.
func (ep Endpoint) truncated(a *Attempt) *Error {
	return &Error{Provider: ep.Provider, Kind: KindNetwork, URL: a.URL,
		Err: fmt.Errorf("stream ended before the answer was complete: %w", io.ErrUnexpectedEOF)}
}

// malformed is the error of a stream that cannot be followed: an event
// that does not decode, or does not continue what came before.
func (ep Endpoint) malformed(a *Attempt, err error) *Error {
	return &Error{Provider: ep.Provider, Kind: KindUnknown, URL: a.URL, Err: err,
		Message: "the server sent a malformed stream: " + err.Error()}
}

// StatusKind classifies an HTTP error answer. Two things only the body
// tells, each provider in its own words: outOfCredit, an account without
// credit (a 402, or a 429 that waiting does not cure), and overflow, a
// prompt larger than the model's window.
func StatusKind(status int, outOfCredit, overflow bool) ErrorKind {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return KindAuth
	case outOfCredit:
		return KindBadRequest
	case status == http.StatusTooManyRequests:
		return KindRateLimit
	case status == http.StatusRequestTimeout || status == http.StatusConflict || status >= 500:
		return KindServer // 529 is Anthropic's "overloaded"
	case overflow:
		return KindContextOverflow
	}
	return KindBadRequest
}

// IsOverflow reports whether msg, a provider's error message, contains one
// of phrases (given in lower case), case-insensitively: the phrases in
// which that provider says the prompt exceeds the model's window.
func IsOverflow(msg string, phrases ...string) bool {
	msg = strings.ToLower(msg)
	for _, p := range phrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func isDecodeError(err error) bool {
	_, syn := errors.AsType[*json.SyntaxError](err)
	_, typ := errors.AsType[*json.UnmarshalTypeError](err)
	return syn || typ
}
