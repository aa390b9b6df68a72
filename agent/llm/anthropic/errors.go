package anthropic

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

	"github.com/parleybot/parley/agent/llm"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/shared"
)

// record has the SDK report the call's HTTP exchange into a.
func record(a *llm.Attempt) option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		return a.Observe(req, next)
	})
}

// classify turns an SDK error into an *llm.Error, or into the context's
// error when the caller cancelled: a cancelled call is not a failure to
// retry or report.
func (p *Provider) classify(ctx context.Context, a *llm.Attempt, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	e := &llm.Error{Provider: name, URL: a.URL, Err: err}
	apiErr, isAPI := errors.AsType[*sdk.Error](err)
	switch {
	case isAPI && apiErr.StatusCode < 400:
		// An error event inside a 200 stream (typically overloaded_error):
		// only its type tells what happened.
		e.Message = apiErr.Message
		e.Kind = typeKind(apiErr.Type(), apiErr.Message)
	case isAPI:
		// A body that is not Anthropic's JSON (a proxy's HTML page) comes
		// without a message: the status text says more than nothing.
		e.Status = apiErr.StatusCode
		e.Message = cmp.Or(apiErr.Message, http.StatusText(apiErr.StatusCode))
		e.Kind = statusKind(apiErr.StatusCode, apiErr.Type(), apiErr.Message)
		if apiErr.Response != nil {
			e.RetryAfter = llm.RetryAfter(apiErr.Response.Header, time.Now())
		}
	case a.Resp != nil && a.Resp.StatusCode >= 400:
		// An error answer whose body broke while the SDK read it.
		e.Status, e.Message = a.Resp.StatusCode, http.StatusText(a.Resp.StatusCode)
		e.Kind = statusKind(a.Resp.StatusCode, "", "")
		e.RetryAfter = llm.RetryAfter(a.Resp.Header, time.Now())
	case a.Resp != nil:
		// The answer had started: its body failed while being read.
		if isDecodeError(err) {
			e.Kind, e.Message = llm.KindUnknown, "the server sent a malformed stream: "+err.Error()
			break
		}
		e.Kind, e.Err = llm.KindNetwork, fmt.Errorf("connection lost mid-stream: %w", err)
	case a.URL != "":
		// Sent but never answered: refused, DNS, reset, TLS. *url.Error
		// repeats the URL, which llm.Error already shows.
		e.Kind = llm.KindNetwork
		if ue, ok := errors.AsType[*url.Error](err); ok {
			e.Err = ue.Err
		}
	default:
		// Never sent: the SDK refused the configuration (a malformed base URL).
		e.Kind, e.URL, e.Message = llm.KindBadRequest, p.baseURL, err.Error()
	}
	e.Message = llm.Scrub(e.Message, p.apiKey)
	return e
}

// truncated is the error of a stream that ended without message_stop.
func (p *Provider) truncated(a *llm.Attempt) error {
	return &llm.Error{Provider: name, Kind: llm.KindNetwork, URL: a.URL,
		Err: fmt.Errorf("stream ended before the answer was complete: %w", io.ErrUnexpectedEOF)}
}

// malformed is the error of a stream Accumulate cannot follow.
func (p *Provider) malformed(a *llm.Attempt, err error) error {
	return &llm.Error{Provider: name, Kind: llm.KindUnknown, URL: a.URL, Err: err,
		Message: "the server sent a malformed stream: " + err.Error()}
}

// statusKind classifies an HTTP error answer.
func statusKind(status int, typ shared.ErrorType, msg string) llm.ErrorKind {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return llm.KindAuth
	case typ == shared.ErrorTypeBillingError:
		// Out of credit: no wait cures it.
		return llm.KindBadRequest
	case status == http.StatusTooManyRequests:
		return llm.KindRateLimit
	case status == http.StatusRequestTimeout || status == http.StatusConflict || status >= 500:
		return llm.KindServer // 529 is Anthropic's "overloaded"
	case isOverflow(msg):
		return llm.KindContextOverflow
	}
	return llm.KindBadRequest
}

// typeKind classifies an error event by its type.
func typeKind(typ shared.ErrorType, msg string) llm.ErrorKind {
	switch typ {
	case shared.ErrorTypeAuthenticationError, shared.ErrorTypePermissionError:
		return llm.KindAuth
	case shared.ErrorTypeRateLimitError:
		return llm.KindRateLimit
	case shared.ErrorTypeInvalidRequestError:
		if isOverflow(msg) {
			return llm.KindContextOverflow
		}
		return llm.KindBadRequest
	case shared.ErrorTypeBillingError, shared.ErrorTypeNotFoundError:
		return llm.KindBadRequest
	}
	// overloaded_error, api_error, timeout_error and the unknown: the
	// request was accepted and the server failed answering it.
	return llm.KindServer
}

// isOverflow recognises "the prompt exceeds the model's window":
// "prompt is too long: 210000 tokens > 200000 maximum", or "input length
// and `max_tokens` exceed context limit: …".
func isOverflow(msg string) bool {
	msg = strings.ToLower(msg)
	for _, s := range []string{"prompt is too long", "exceed context limit", "context window"} {
		if strings.Contains(msg, s) {
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
