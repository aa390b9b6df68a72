package openai

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/parleybot/parley/agent/llm"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// readError reads openai-go's own error types: an error answer, and an
// error event inside a 200 stream.
func readError(err error) (llm.Reply, bool) {
	if e, ok := errors.AsType[*sdk.Error](err); ok {
		kind := statusKind(e.StatusCode, e.Type, e.Code, e.Message)
		return llm.Reply{Status: e.StatusCode, Kind: kind, Message: e.Message, Response: e.Response}, true
	}
	// The SDK decodes a stream only from a 2xx answer, so a StreamError
	// never hides an error status.
	if e, ok := errors.AsType[*ssestream.StreamError](err); ok {
		kind, msg := streamErrorKind(e.Event.Data)
		return llm.Reply{Kind: kind, Message: msg}, true
	}
	return llm.Reply{}, false
}

// statusKind classifies an HTTP error answer.
func statusKind(status int, typ, code, msg string) llm.ErrorKind {
	// insufficient_quota is a 429 that waiting does not cure: the account
	// is out of credit.
	outOfCredit := typ == "insufficient_quota" || code == "insufficient_quota"
	return llm.StatusKind(status, outOfCredit, isOverflow(code, msg))
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
	return code == "context_length_exceeded" || llm.IsOverflow(msg, "context length", "context window", "context size")
}
