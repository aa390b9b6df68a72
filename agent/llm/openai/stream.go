package openai

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"iter"
	"strings"

	"github.com/parleybot/parley/agent/llm"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// chatCall is one streamed Chat Completions call (an llm.Call).
type chatCall struct {
	p       *Provider
	req     llm.Request
	acc     sdk.ChatCompletionAccumulator
	started []bool // started[i]: EventToolCallStart sent for tool call i
	// thinking is the reasoning a compatible server streamed (DeepSeek,
	// vLLM, OpenRouter: reasoning_content or reasoning); the accumulator
	// keeps only the fields OpenAI defines.
	thinking strings.Builder
}

// Stream makes one streamed Chat Completions call. Text and tool-call
// fragments are yielded as they arrive; the final EventDone carries the
// response as the SDK's accumulator assembled it. Failures are yielded as
// *llm.Error, except cancellation, which is yielded as the context's error.
func (p *Provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		llm.StreamCall(ctx, p.endpoint, &chatCall{p: p, req: req}, yield)
	}
}

// Decode feeds a chunk to the accumulator and yields the text and
// tool-call fragments it carries.
func (c *chatCall) Decode(chunk sdk.ChatCompletionChunk, yield func(llm.Event) bool) (bool, error) {
	if !c.acc.AddChunk(chunk) {
		return false, errors.New("a chunk does not continue the stream")
	}
	for _, choice := range chunk.Choices {
		if choice.Index != 0 { // one choice is asked for; ignore strays
			continue
		}
		if r := reasoning(choice.Delta.JSON.ExtraFields); r != "" {
			c.thinking.WriteString(r)
			if !yield(llm.Event{Kind: llm.EventThinkingDelta, Text: r}) {
				return false, nil
			}
		}
		if d := choice.Delta.Content; d != "" {
			if !yield(llm.Event{Kind: llm.EventTextDelta, Text: d}) {
				return false, nil
			}
		}
		for _, tc := range choice.Delta.ToolCalls {
			i := max(int(tc.Index), 0) // some servers send -1 for a lone call
			for len(c.started) <= i {
				c.started = append(c.started, false)
			}
			if !c.started[i] && (tc.ID != "" || tc.Function.Name != "") {
				c.started[i] = true
				call := &llm.ToolCall{ID: tc.ID, Name: tc.Function.Name}
				if !yield(llm.Event{Kind: llm.EventToolCallStart, Index: i, ToolCall: call}) {
					return false, nil
				}
			}
			if args := tc.Function.Arguments; args != "" {
				if !yield(llm.Event{Kind: llm.EventToolCallDelta, Index: i, Text: args}) {
					return false, nil
				}
			}
		}
	}
	return true, nil
}

// Done returns the accumulated response, or false when the body ended
// cleanly but without a finish_reason: a proxy or server that gave up
// mid-answer.
func (c *chatCall) Done() (*llm.Response, bool) {
	resp, ok := response(&c.acc)
	if ok && c.thinking.Len() > 0 {
		resp.Thinking = []llm.Thinking{{Text: c.thinking.String()}}
	}
	return resp, ok
}

// reasoning is the reasoning text of a delta from a server that shows it.
func reasoning(extra map[string]respjson.Field) string {
	for _, name := range []string{"reasoning_content", "reasoning"} {
		f, ok := extra[name] // extra fields never count as Valid
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// Send builds the request and starts it, recording the exchange in a.
func (c *chatCall) Send(ctx context.Context, a *llm.Attempt) (llm.SSE[sdk.ChatCompletionChunk], error) {
	params, err := newParams(c.req)
	if err != nil {
		return nil, err
	}
	return c.p.chat.NewStreaming(ctx, params, option.WithMiddleware(a.Observe)), nil
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
			CachedTokens: int(acc.Usage.PromptTokensDetails.CachedTokens),
		},
	}
	for _, tc := range choice.Message.ToolCalls {
		args := tc.Function.Arguments
		if args == "" {
			// Compatible servers send "" for a call without parameters.
			args = "{}"
		}
		id := tc.ID
		if id == "" {
			// Some compatible servers send none; the agent pairs each
			// result with its call by id, so the call gets one of its own.
			id = "call_" + rand.Text()[:24]
		}
		resp.ToolCalls = append(resp.ToolCalls, llm.ToolCall{ID: id, Name: tc.Function.Name, Arguments: json.RawMessage(args)})
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
