package openai

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

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
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
	streamErr, isStream := errors.AsType[*ssestream.StreamError](err)
	switch {
	case isAPI:
		// An error page that is not OpenAI's JSON (a proxy's HTML, a
		// plain-text 404 from a server without the /v1 routes) comes
		// without a message: the status text says more than nothing.
		e.Status = apiErr.StatusCode
		e.Message = cmp.Or(apiErr.Message, http.StatusText(apiErr.StatusCode))
		e.Kind = statusKind(apiErr.StatusCode, apiErr.Type, apiErr.Code, apiErr.Message)
		if apiErr.Response != nil {
			e.RetryAfter = llm.RetryAfter(apiErr.Response.Header, time.Now())
		}
	case a.Resp != nil && a.Resp.StatusCode >= 400:
		// An error answer whose body broke while the SDK read it.
		e.Status, e.Message = a.Resp.StatusCode, http.StatusText(a.Resp.StatusCode)
		e.Kind = statusKind(a.Resp.StatusCode, "", "", "")
		e.RetryAfter = llm.RetryAfter(a.Resp.Header, time.Now())
	case isStream:
		e.Kind, e.Message = streamErrorKind(streamErr.Event.Data)
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

// truncated is the error of a stream that ended without finishing.
func (p *Provider) truncated(a *llm.Attempt) error {
	return &llm.Error{Provider: name, Kind: llm.KindNetwork, URL: a.URL,
		Err: fmt.Errorf("stream ended before the answer was complete: %w", io.ErrUnexpectedEOF)}
}

// malformed is the error of a stream the accumulator cannot follow.
func (p *Provider) malformed(a *llm.Attempt, why string) error {
	return &llm.Error{Provider: name, Kind: llm.KindUnknown, URL: a.URL,
		Message: "the server sent a malformed stream: " + why}
}

// statusKind classifies an HTTP error answer.
func statusKind(status int, typ, code, msg string) llm.ErrorKind {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return llm.KindAuth
	case typ == "insufficient_quota" || code == "insufficient_quota":
		// A 429 that waiting does not cure: the account is out of credit.
		return llm.KindBadRequest
	case status == http.StatusTooManyRequests:
		return llm.KindRateLimit
	case status == http.StatusRequestTimeout || status == http.StatusConflict || status >= 500:
		return llm.KindServer
	case isOverflow(code, msg):
		return llm.KindContextOverflow
	}
	return llm.KindBadRequest
}

// streamErrorKind classifies an error event sent inside a 200 stream:
// {"error":{"message":…,"type":…,"code":…}} from OpenAI, sometimes
// {"error":"text"} from compatible servers.
func streamErrorKind(data []byte) (llm.ErrorKind, string) {
	var ev struct {
		Error json.RawMessage `json:"error"`
	}
	var e struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"` // a string, a number or null, by server
	}
	if json.Unmarshal(data, &ev) != nil {
		return llm.KindServer, strings.TrimSpace(string(data))
	}
	// The error is a string, or else an object.
	if json.Unmarshal(ev.Error, &e.Message) != nil && json.Unmarshal(ev.Error, &e) != nil {
		return llm.KindServer, strings.TrimSpace(string(data))
	}
	code, _ := e.Code.(string)
	switch {
	case isOverflow(code, e.Message):
		return llm.KindContextOverflow, e.Message
	case code == "rate_limit_exceeded" || e.Type == "rate_limit_error":
		return llm.KindRateLimit, e.Message
	case e.Type == "invalid_request_error":
		return llm.KindBadRequest, e.Message
	}
	// server_error and the unknown: the request was accepted, the
	// server failed while answering; another attempt may work.
	return llm.KindServer, e.Message
}

// isOverflow recognises "the prompt exceeds the model's window", which
// OpenAI marks with a code and compatible servers (vLLM, llama.cpp,
// OpenRouter) only say in words.
func isOverflow(code, msg string) bool {
	if code == "context_length_exceeded" {
		return true
	}
	msg = strings.ToLower(msg)
	for _, s := range []string{"context length", "context window", "context size"} {
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
