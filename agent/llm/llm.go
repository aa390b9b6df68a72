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
// user → Text and Images (and Author in multi-person conversations);
// assistant → Text and/or ToolCalls; tool → ToolCallID, Text (the result),
// IsError and Images (what the tool returned; see Image).
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
)

// Event is one item of a provider stream.
type Event struct {
	Kind     EventKind
	Text     string
	Index    int
	ToolCall *ToolCall
	Response *Response
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
// cached tokens included.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Response is the complete result of one model call, assembled by the
// provider from the stream (the SDKs' accumulators do the assembling).
type Response struct {
	Text       string
	ToolCalls  []ToolCall
	Usage      Usage
	StopReason StopReason
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
