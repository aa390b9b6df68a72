package anthropic

import (
	"context"
	"encoding/json"
	"iter"
	"strings"

	"github.com/parleybot/parley/agent/llm"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
)

// Stream makes one streamed Messages call. Text and tool-input fragments
// are yielded as they arrive; the final EventDone carries the message as
// the SDK's Accumulate assembled it. Failures are yielded as *llm.Error,
// except cancellation, which is yielded as the context's error.
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
		s := p.messages.NewStreaming(ctx, params, record(&a))
		defer s.Close()

		var msg sdk.Message
		// callIndex[b] is the tool-call number of content block b, -1 for
		// other blocks: llm events count tool calls, not content blocks.
		var callIndex []int
		calls, stopped := 0, false
		for s.Next() {
			ev := s.Current()
			if err := msg.Accumulate(ev); err != nil {
				yield(llm.Event{}, p.malformed(&a, err))
				return
			}
			switch ev.Type {
			case "content_block_start":
				// Accumulate checked that blocks start in order, so
				// ev.Index == len(callIndex).
				if ev.ContentBlock.Type != "tool_use" {
					callIndex = append(callIndex, -1)
					continue
				}
				callIndex = append(callIndex, calls)
				call := &llm.ToolCall{ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}
				if !yield(llm.Event{Kind: llm.EventToolCallStart, Index: calls, ToolCall: call}, nil) {
					return
				}
				calls++
			case "content_block_delta":
				var out llm.Event
				switch d := ev.Delta; {
				case d.Type == "text_delta" && d.Text != "":
					out = llm.Event{Kind: llm.EventTextDelta, Text: d.Text}
				case d.Type == "input_json_delta" && d.PartialJSON != "" && callIndex[ev.Index] >= 0:
					out = llm.Event{Kind: llm.EventToolCallDelta, Index: callIndex[ev.Index], Text: d.PartialJSON}
				default:
					continue // thinking, signatures, citations: not in the neutral stream
				}
				if !yield(out, nil) {
					return
				}
			case "message_stop":
				stopped = true
			}
		}
		if err := s.Err(); err != nil {
			yield(llm.Event{}, p.classify(ctx, &a, err))
			return
		}
		if !stopped {
			// The body ended cleanly but before message_stop: a proxy or
			// server that gave up mid-answer. Retrying is the cure.
			yield(llm.Event{}, p.truncated(&a))
			return
		}
		yield(llm.Event{Kind: llm.EventDone, Response: response(&msg)}, nil)
	}
}

func response(msg *sdk.Message) *llm.Response {
	u := msg.Usage
	resp := &llm.Response{
		Usage: llm.Usage{
			// input_tokens excludes what was read from or written to the
			// prompt cache; the prompt's size is the sum.
			InputTokens:  int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens),
			OutputTokens: int(u.OutputTokens),
		},
		StopReason: stopReason(msg.StopReason),
	}
	var text strings.Builder
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
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
