// Package llm holds the provider-neutral request and stream types that the
// agent speaks, and the registry that routes "provider/model" names to a
// Provider. Concrete providers live in sub-packages (openai, anthropic) and
// adapt the official SDKs; llmtest fakes both wire protocols.
package llm

import (
	"context"
	"encoding/json"
	"iter"
)

// Role is who wrote a message in a conversation.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool" // a tool result answering one ToolCall
)

// Message is one entry of a transcript. Exactly one shape applies per role:
// user → Text and Images (and Author in multi-person conversations,
// Preamble when the agent added one); assistant → Text and/or ToolCalls,
// with Model, Thinking and Usage as the call produced them; tool →
// ToolCallID, Text (the result), IsError and Images (what the tool
// returned; see Image).
//
// Providers ignore Author (the agent writes names into the text when more
// than one person speaks), and only Anthropic has a wire field for IsError.
type Message struct {
	Role       Role       `json:"role"`
	Text       string     `json:"text,omitempty"`
	Author     string     `json:"author,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	ToolName   string     `json:"tool_name,omitempty"`
	IsError    bool       `json:"is_error,omitempty"`
	// Images follow Text, in the order they were attached.
	Images []Image `json:"images,omitempty"`
	// Key is the durable key of the inbound event a user message came from,
	// so a restarted chat layer can tell whether it already reached the
	// session. Providers ignore it.
	Key string `json:"key,omitempty"`
	// Preamble is what the agent tells the model along with a user message
	// (the time it was sent): providers send it before Text, so Text stays
	// what the person wrote. It is stored with the message, so every later
	// request repeats the same bytes and the prompt cache keeps hitting.
	Preamble string `json:"preamble,omitempty"`
	// Model is the "provider/model" that wrote an assistant message.
	Model string `json:"model,omitempty"`
	// Thinking are the reasoning blocks that came with an assistant
	// message, in order. They go back verbatim to the model that wrote them
	// (Anthropic checks their signatures) and to no other model.
	Thinking []Thinking `json:"thinking,omitempty"`
	// Usage is what the call that wrote an assistant message cost.
	Usage *Usage `json:"usage,omitempty"`
}

// Thinking is one reasoning block of an answer. Text is the reasoning as
// the provider showed it; Signature is Anthropic's proof that the block is
// the model's own; Redacted holds the encrypted content of a block the
// provider would not show (Text is then empty).
type Thinking struct {
	Text      string `json:"text,omitempty"`
	Signature string `json:"signature,omitempty"`
	Redacted  string `json:"redacted,omitempty"`
}

// UserText is the text a provider sends for a user message: the preamble,
// then what the person wrote.
func UserText(m Message) string {
	if m.Preamble == "" {
		return m.Text
	}
	return m.Preamble + "\n\n" + m.Text
}

// ToolCall is a model's request to run a tool. Arguments is the raw JSON the
// model produced, which may be invalid; the agent validates it.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolSpec describes a tool to the model. Schema is a JSON Schema object.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// Request is one model call.
type Request struct {
	Model     string // the model name without the provider prefix
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int // 0 = provider default
	// Tail is context the model reads after the whole conversation (a
	// task's plan, the skills related to this turn): it changes from call
	// to call, so it belongs to no stored message and comes after the
	// prompt cache's last breakpoint.
	Tail string
	// CacheKey names the conversation, so a provider that routes by it
	// (OpenAI's prompt_cache_key) sends its calls where its prefix is
	// cached. Empty: none.
	CacheKey string
	// Reasoning asks for thinking before the answer; zero asks for none.
	// A model that cannot reason never sees it (see Registry).
	Reasoning Reasoning
	// Format, when set, asks for the answer as one JSON object matching
	// Format.Schema (structured output); Format.Answer reads it back.
	// nil: free text.
	Format *Format
}

// Format asks a model for a structured answer. OpenAI-compatible servers
// (OpenAI, Ollama, vLLM, llama.cpp) get response_format {type:
// json_schema}; Anthropic gets a tool named Name taking Schema that the
// model must call (tool_choice), since every Claude model supports that.
// A server that ignores the request answers in plain text, so a caller
// keeps a fallback for that.
type Format struct {
	// Name names the format (OpenAI's json_schema.name, Anthropic's tool
	// name): ^[a-zA-Z0-9_-]{1,64}$.
	Name        string
	Description string
	// Schema is the answer's JSON Schema, an object schema.
	Schema json.RawMessage
}

// Answer returns the structured answer in r: the arguments of a tool
// call named f.Name (Anthropic answers that way), else r's text.
func (f *Format) Answer(r *Response) string {
	if f != nil && r != nil {
		for _, c := range r.ToolCalls {
			if c.Name == f.Name {
				return string(c.Arguments)
			}
		}
	}
	if r == nil {
		return ""
	}
	return r.Text
}

// EventKind tells which fields of an Event are set.
type EventKind int

const (
	// EventTextDelta carries Text: the next piece of the answer.
	EventTextDelta EventKind = iota + 1
	// EventToolCallStart carries ToolCall with ID and Name (Arguments empty)
	// as soon as the model starts a tool call, and Index: the call's
	// position in this response, as used by EventToolCallDelta.
	EventToolCallStart
	// EventToolCallDelta carries Index and Text: a fragment of the arguments
	// of the Index-th tool call of this response.
	EventToolCallDelta
	// EventDone ends every successful stream and carries Response.
	EventDone
	// EventThinkingDelta carries Text: the next piece of the model's
	// reasoning, before its answer.
	EventThinkingDelta
	// EventFallback says the call failed on one model and continues on
	// another (see Fallback): Text names the model it continues on, Err is
	// why; text streamed so far is void, as the answer starts again.
	EventFallback
)

// Event is one item of a provider stream.
type Event struct {
	Kind     EventKind
	Text     string
	Index    int
	ToolCall *ToolCall
	Response *Response
	Err      error // EventFallback
}

// StopReason says why the model stopped.
type StopReason string

const (
	StopEnd       StopReason = "end"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
	StopOther     StopReason = "other"
)

// Usage counts tokens of one model call. InputTokens is the whole prompt,
// cached tokens included: CachedTokens of it were read from the provider's
// prompt cache (billed at a fraction), CacheWriteTokens written to it
// (Anthropic bills those above the base price; OpenAI writes for free and
// does not report them).
type Usage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CachedTokens     int `json:"cached_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + v.InputTokens,
		OutputTokens:     u.OutputTokens + v.OutputTokens,
		CachedTokens:     u.CachedTokens + v.CachedTokens,
		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
	}
}

// Response is the complete result of one model call, assembled by the
// provider from the stream (the SDKs' accumulators do the assembling).
type Response struct {
	Text       string
	ToolCalls  []ToolCall
	Thinking   []Thinking
	Usage      Usage
	StopReason StopReason
	// Model is the "provider/model" that answered, set by the Registry's
	// providers; "" from a bare provider.
	Model string
}

// Provider streams model calls. Leaving the range early cancels the
// underlying HTTP request. Errors are yielded in-band, as *Error where the
// provider answered.
type Provider interface {
	Stream(ctx context.Context, req Request) iter.Seq2[Event, error]
}

// Collect consumes a stream and returns its final Response; it is the
// non-streaming form of Stream.
func Collect(stream iter.Seq2[Event, error]) (*Response, error) {
	for ev, err := range stream {
		if err != nil {
			return nil, err
		}
		if ev.Kind == EventDone {
			return ev.Response, nil
		}
	}
	return nil, ErrIncomplete
}
