package llmtest

import (
	"maps"
	"net/http"
	"slices"
	"time"
)

// Reply is one scripted answer. The server renders it in the wire protocol of
// the endpoint that consumes it, so one script serves both providers.
//
// A Reply with Status set is an error answer (that status and the provider's
// error body); otherwise it is a streamed answer: Chunks as text deltas, then
// each of ToolCalls with its arguments in the given fragments, then Fault or
// a normal end.
type Reply struct {
	// Thinking are the deltas of one thinking block streamed before the
	// answer: Anthropic thinking_delta events and a signature the server
	// checks when the block comes back (see Server), OpenAI-compatible
	// reasoning_content deltas (as DeepSeek and vLLM stream them).
	Thinking []string
	Chunks   []string // text deltas, in order
	// ChunkEvery is the pause between two text deltas: a model writing
	// slowly, so a reply streams in visible steps. Zero sends them at once.
	ChunkEvery time.Duration
	// Latency is the pause before the answer starts (headers included):
	// a model's time to its first token, as load measurements need it.
	Latency   time.Duration
	ToolCalls []ScriptedCall // tool calls, after the text
	// Usage is reported at the end of the stream. When zero, the server
	// reports an estimate (a token per 4 bytes of request, one per
	// fragment), with the cached tokens its prompt cache accounts (see
	// Server), so callers can tell that usage was mapped.
	Usage Usage
	// MaxTokens ends the answer as cut off by the output limit
	// (OpenAI finish_reason "length", Anthropic stop_reason "max_tokens").
	MaxTokens bool
	// Fault, when set, replaces the end of the stream (a Status reply
	// has no stream and ignores it).
	Fault Fault

	// Status, when non-zero, answers with this HTTP status and the
	// provider's error body instead of a stream.
	Status int
	// Message is the error message of a Status reply; empty means the
	// provider's usual message for that status.
	Message string
	// Header holds extra response headers, such as Retry-After.
	Header http.Header

	overflow bool // a context-length error, rendered with each provider's marker
}

// ScriptedCall is one tool call of a Reply. Args are the fragments in which
// the arguments JSON is streamed; their concatenation is the arguments. An
// empty ID is replaced by a generated one, unique per server
// ("call_<answer>_<i>" / "toolu_<answer>_<i>").
type ScriptedCall struct {
	ID   string
	Name string
	Args []string
}

// Usage is the token count a Reply reports. InputTokens is the whole
// prompt; CachedTokens of it were read from the cache and
// CacheWriteTokens written to it (Anthropic reports those two apart from
// its input_tokens, OpenAI reports cached_tokens within prompt_tokens).
type Usage struct {
	InputTokens      int
	OutputTokens     int
	CachedTokens     int
	CacheWriteTokens int
}

// Fault is a failure injected at the end of a streamed Reply, after its
// chunks and tool calls were sent and before the stream would have ended.
type Fault int

const (
	// FaultNone ends the stream normally.
	FaultNone Fault = iota
	// FaultStall keeps the connection open without sending anything more,
	// until the client gives up (its context ends) or the server closes:
	// the way to test cancellation mid-stream.
	FaultStall
	// FaultDrop breaks the connection mid-stream, as a crashed proxy would.
	FaultDrop
	// FaultTruncate ends the body cleanly where the closing events should
	// be, as a proxy that times the stream out does: no network error, just
	// an answer that never finished.
	FaultTruncate
	// FaultErrorEvent ends the stream with the provider's in-stream error
	// event, as a provider that fails mid-answer does: Anthropic's
	// "event: error" with overloaded_error, OpenAI's data line holding
	// {"error":{"type":"server_error",…}}.
	FaultErrorEvent
)

// Text is a streamed answer whose text arrives in the given chunks.
func Text(chunks ...string) Reply {
	return Reply{Chunks: chunks}
}

// Paced returns r with its text deltas sent every d.
func (r Reply) Paced(d time.Duration) Reply {
	r.ChunkEvery = d
	return r
}

// ToolCall is a streamed answer holding one tool call whose arguments JSON
// arrives in the given fragments.
func ToolCall(id, name string, argChunks ...string) Reply {
	return Reply{}.WithToolCall(id, name, argChunks...)
}

// Delayed returns r answering only after d: the model's time to its
// first token.
func (r Reply) Delayed(d time.Duration) Reply {
	r.Latency = d
	return r
}

// WithToolCall returns r with one more tool call, so text and several calls
// combine: Text("Checking.").WithToolCall("a", "f", `{}`).WithToolCall(...).
func (r Reply) WithToolCall(id, name string, argChunks ...string) Reply {
	r.ToolCalls = append(slices.Clip(r.ToolCalls), ScriptedCall{ID: id, Name: name, Args: argChunks})
	return r
}

// Status is an error answer with the given HTTP status and the provider's
// usual error body for it (401: the invalid-key error, 429: rate limit, 529:
// Anthropic's overloaded error, ...). Add headers with WithHeader and a
// specific text with WithMessage.
func Status(code int) Reply {
	return Reply{Status: code}
}

// ContextOverflow is the error each provider answers when the prompt exceeds
// the model's window: OpenAI 400 with code "context_length_exceeded",
// Anthropic 400 invalid_request_error "prompt is too long: N tokens > M maximum".
func ContextOverflow() Reply {
	return Reply{Status: http.StatusBadRequest, overflow: true}
}

// Stall streams the chunks, then hangs until the request's context ends or
// the server closes.
func Stall(chunks ...string) Reply {
	return Reply{Chunks: chunks, Fault: FaultStall}
}

// Drop streams the chunks, then breaks the connection.
func Drop(chunks ...string) Reply {
	return Reply{Chunks: chunks, Fault: FaultDrop}
}

// WithHeader returns r with a response header set, e.g.
// Status(429).WithHeader("Retry-After", "2").
func (r Reply) WithHeader(key, value string) Reply {
	h := maps.Clone(r.Header)
	if h == nil {
		h = http.Header{}
	}
	h.Set(key, value)
	r.Header = h
	return r
}

// WithMessage returns r with its error message replaced.
func (r Reply) WithMessage(msg string) Reply {
	r.Message = msg
	return r
}

// WithThinking returns r with a thinking block streamed in these deltas
// before its text.
func (r Reply) WithThinking(deltas ...string) Reply {
	r.Thinking = deltas
	return r
}

// WithUsage returns r reporting the given token counts.
func (r Reply) WithUsage(input, output int) Reply {
	r.Usage = Usage{InputTokens: input, OutputTokens: output}
	return r
}

// usageFor returns the usage to report for r answering req.
func (r Reply) usageFor(req Request) Usage {
	if r.Usage != (Usage{}) {
		return r.Usage
	}
	out := len(r.Chunks) + len(r.Thinking)
	for _, c := range r.ToolCalls {
		out += 1 + len(c.Args)
	}
	return Usage{InputTokens: max(1, len(req.Body)/4), OutputTokens: max(1, out)}
}
