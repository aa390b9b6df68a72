package anthropic

import (
	"context"
	"encoding/json"
	"iter"
	"strings"

	"github.com/parleybot/parley/agent/llm"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// messagesCall is one streamed Messages call (an llm.Call).
type messagesCall struct {
	p   *Provider
	req llm.Request
	msg sdk.Message
	// callIndex[b] is the tool-call number of content block b, -1 for
	// other blocks: llm events count tool calls, not content blocks.
	callIndex []int
	calls     int
	stopped   bool // message_stop came
}

// Stream makes one streamed Messages call. Text and tool-input fragments
// are yielded as they arrive; the final EventDone carries the message as
// the SDK's Accumulate assembled it. Failures are yielded as *llm.Error,
// except cancellation, which is yielded as the context's error.
func (p *Provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		llm.StreamCall(ctx, p.endpoint, &messagesCall{p: p, req: req}, yield)
	}
}

// Decode feeds an event to Accumulate and yields the text and tool-input
// fragments it carries.
func (c *messagesCall) Decode(ev sdk.MessageStreamEventUnion, yield func(llm.Event) bool) (bool, error) {
	if err := c.msg.Accumulate(ev); err != nil {
		return false, err
	}
	switch ev.Type {
	case "content_block_start":
		// Accumulate checked that blocks start in order, so
		// ev.Index == len(callIndex).
		if ev.ContentBlock.Type != "tool_use" {
			c.callIndex = append(c.callIndex, -1)
			return true, nil
		}
		c.callIndex = append(c.callIndex, c.calls)
		call := &llm.ToolCall{ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}
		if !yield(llm.Event{Kind: llm.EventToolCallStart, Index: c.calls, ToolCall: call}) {
			return false, nil
		}
		c.calls++
	case "content_block_delta":
		var out llm.Event
		switch d := ev.Delta; {
		case d.Type == "text_delta" && d.Text != "":
			out = llm.Event{Kind: llm.EventTextDelta, Text: d.Text}
		case d.Type == "input_json_delta" && d.PartialJSON != "" && c.callIndex[ev.Index] >= 0:
			out = llm.Event{Kind: llm.EventToolCallDelta, Index: c.callIndex[ev.Index], Text: d.PartialJSON}
		case d.Type == "thinking_delta" && d.Thinking != "":
			out = llm.Event{Kind: llm.EventThinkingDelta, Text: d.Thinking}
		default:
			return true, nil // signatures, citations: only in the final message
		}
		return yield(out), nil
	case "message_stop":
		c.stopped = true
	}
	return true, nil
}

// Done returns the message Accumulate assembled, or false when the body
// ended cleanly but before message_stop: a proxy or server that gave up
// mid-answer.
func (c *messagesCall) Done() (*llm.Response, bool) {
	if !c.stopped {
		return nil, false
	}
	return response(&c.msg), true
}

// Send builds the request and starts it, recording the exchange in a.
func (c *messagesCall) Send(ctx context.Context, a *llm.Attempt) (llm.SSE[sdk.MessageStreamEventUnion], error) {
	params, err := newParams(c.req)
	if err != nil {
		return nil, err
	}
	return c.p.client.Messages.NewStreaming(ctx, params, option.WithMiddleware(a.Observe)), nil
}

func response(msg *sdk.Message) *llm.Response {
	u := msg.Usage
	resp := &llm.Response{
		Usage: llm.Usage{
			// input_tokens excludes what was read from or written to the
			// prompt cache; the prompt's size is the sum.
			InputTokens:      int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens),
			OutputTokens:     int(u.OutputTokens),
			CachedTokens:     int(u.CacheReadInputTokens),
			CacheWriteTokens: int(u.CacheCreationInputTokens),
		},
		StopReason: stopReason(msg.StopReason),
	}
	var text strings.Builder
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "thinking":
			resp.Thinking = append(resp.Thinking, llm.Thinking{Text: b.Thinking, Signature: b.Signature})
		case "redacted_thinking":
			resp.Thinking = append(resp.Thinking, llm.Thinking{Redacted: b.Data})
		case "tool_use":
			args := b.Input
			if len(args) == 0 {
				args = json.RawMessage(`{}`)
			}
			resp.ToolCalls = append(resp.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		}
	}
	resp.Text = text.String()
	return resp
}

func stopReason(r sdk.StopReason) llm.StopReason {
	switch r {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence:
		return llm.StopEnd
	case sdk.StopReasonToolUse:
		return llm.StopToolUse
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		// Both mean the answer was cut for lack of room.
		return llm.StopMaxTokens
	}
	return llm.StopOther // pause_turn, refusal
}
