package anthropic

import (
	"errors"

	"github.com/parleybot/parley/agent/llm"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/shared"
)

// readError reads anthropic-sdk-go's error type, which stands both for an
// error answer and for an error event inside a 200 stream.
func readError(err error) (llm.Reply, bool) {
	e, ok := errors.AsType[*sdk.Error](err)
	switch {
	case !ok:
		return llm.Reply{}, false
	case e.StatusCode < 400:
		// An error event inside a 200 stream (typically overloaded_error):
		// only its type tells what happened.
		return llm.Reply{Kind: typeKind(e.Type(), e.Message), Message: e.Message}, true
	}
	kind := statusKind(e.StatusCode, e.Type(), e.Message)
	return llm.Reply{Status: e.StatusCode, Kind: kind, Message: e.Message, Response: e.Response}, true
}

// statusKind classifies an HTTP error answer.
func statusKind(status int, typ shared.ErrorType, msg string) llm.ErrorKind {
	// billing_error: out of credit, which no wait cures.
	return llm.StatusKind(status, typ == shared.ErrorTypeBillingError, isOverflow(msg))
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
	return llm.IsOverflow(msg, "prompt is too long", "exceed context limit", "context window")
}
