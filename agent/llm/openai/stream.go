package openai

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/parleybot/parley/agent/llm"

	sdk "github.com/openai/openai-go/v3"
)

// Stream makes one streamed Chat Completions call. Text and tool-call
// fragments are yielded as they arrive; the final EventDone carries the
// response as the SDK's accumulator assembled it. Failures are yielded as
// *llm.Error, except cancellation, which is yielded as the context's error.
func (p *Provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		params, err := newParams(req)
		if err != nil {
			yield(llm.Event{}, &llm.Error{Provider: name, Kind: llm.KindBadRequest, Message: err.Error(), Err: err})
			return
		}
		// A consumer that stops ranging must end the HTTP request now, not
		// when the model finishes talking: Close drops the body, cancel
		// covers a request still waiting for its headers.
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var a llm.Attempt
		s := p.chat.NewStreaming(ctx, params, record(&a))
		defer s.Close()

		var acc sdk.ChatCompletionAccumulator
		var started []bool // started[i]: EventToolCallStart sent for tool call i
		for s.Next() {
			chunk := s.Current()
			if !acc.AddChunk(chunk) {
				yield(llm.Event{}, p.malformed(&a, "a chunk does not continue the stream"))
				return
			}
			for _, choice := range chunk.Choices {
				if choice.Index != 0 { // one choice is asked for; ignore strays
					continue
				}
				if d := choice.Delta.Content; d != "" {
					if !yield(llm.Event{Kind: llm.EventTextDelta, Text: d}, nil) {
						return
					}
				}
				for _, tc := range choice.Delta.ToolCalls {
					i := max(int(tc.Index), 0) // some servers send -1 for a lone call
					for len(started) <= i {
						started = append(started, false)
					}
					if !started[i] && (tc.ID != "" || tc.Function.Name != "") {
						started[i] = true
						call := &llm.ToolCall{ID: tc.ID, Name: tc.Function.Name}
						if !yield(llm.Event{Kind: llm.EventToolCallStart, Index: i, ToolCall: call}, nil) {
							return
						}
					}
					if args := tc.Function.Arguments; args != "" {
						if !yield(llm.Event{Kind: llm.EventToolCallDelta, Index: i, Text: args}, nil) {
							return
						}
					}
				}
			}
		}
		if err := s.Err(); err != nil {
			yield(llm.Event{}, p.classify(ctx, &a, err))
			return
		}
		resp, ok := response(&acc)
		if !ok {
			// The body ended cleanly but without a finish_reason: a proxy
			// or server that gave up mid-answer. Retrying is the cure.
			yield(llm.Event{}, p.truncated(&a))
			return
		}
		yield(llm.Event{Kind: llm.EventDone, Response: resp}, nil)
	}
}

// response converts the accumulated completion; ok is false when the
// stream never said why it stopped, i.e. it was cut short.
func response(acc *sdk.ChatCompletionAccumulator) (resp *llm.Response, ok bool) {
	if len(acc.Choices) == 0 || acc.Choices[0].FinishReason == "" {
		return nil, false
	}
	choice := acc.Choices[0]
	resp = &llm.Response{
		Text: choice.Message.Content,
		Usage: llm.Usage{
			InputTokens:  int(acc.Usage.PromptTokens),
			OutputTokens: int(acc.Usage.CompletionTokens),
		},
	}
	for _, tc := range choice.Message.ToolCalls {
		args := tc.Function.Arguments
		if args == "" {
			// Compatible servers send "" for a call without parameters.
			args = "{}"
		}
		resp.ToolCalls = append(resp.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: json.RawMessage(args)})
	}
	resp.StopReason = stopReason(choice.FinishReason, len(resp.ToolCalls) > 0)
	return resp, true
}

func stopReason(finish string, hasCalls bool) llm.StopReason {
	switch finish {
	case "tool_calls", "function_call":
		return llm.StopToolUse
	case "length":
		return llm.StopMaxTokens
	case "stop":
		// Some compatible servers say "stop" after tool calls; the calls
		// are what the agent must act on.
		if hasCalls {
			return llm.StopToolUse
		}
		return llm.StopEnd
	}
	return llm.StopOther
}
