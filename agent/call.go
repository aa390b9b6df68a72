package agent

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/parleybot/parley/agent/llm"
)

// call makes one model call, streaming its text and retrying what can be
// retried. On failure it returns the text streamed by the last attempt.
//
// The provider may be an llm.Fallback: its EventFallback (the call goes
// on on another model) is shown as a retry that waits for nothing, and
// the text the failed model streamed is dropped like a failed attempt's.
// Thinking is streamed on only when the runner shows it.
func (x *run) call(ctx context.Context, req llm.Request) (*llm.Response, string, error) {
	policy := x.r.Retry.withDefaults()
	fellBack := false
	for attempt := 1; ; attempt++ {
		var partial, thought strings.Builder
		var resp *llm.Response
		var err error
		for ev, serr := range x.r.Provider.Stream(ctx, req) {
			if serr != nil {
				err = serr
				break
			}
			switch ev.Kind {
			case llm.EventTextDelta:
				partial.WriteString(ev.Text)
				if !x.emit(Event{Kind: EventText, Text: ev.Text}) {
					return nil, partial.String(), errStopped
				}
			case llm.EventThinkingDelta:
				if !x.r.ShowThinking {
					continue
				}
				thought.WriteString(ev.Text)
				if !x.emit(Event{Kind: EventThinking, Text: tail(thought.String(), thinkingPreview)}) {
					return nil, partial.String(), errStopped
				}
			case llm.EventFallback:
				fellBack = true
				thought.Reset()
				info := &RetryInfo{Attempt: attempt, Err: ev.Err, Reset: partial.Len() > 0, Model: ev.Text}
				partial.Reset()
				if !x.emit(Event{Kind: EventRetry, Retry: info}) {
					return nil, "", errStopped
				}
			case llm.EventDone:
				resp = ev.Response
			}
		}
		if resp != nil {
			if fellBack {
				x.r.logger().Info("answer written by a fallback model", "session", x.t.SessionID, "model", resp.Model)
			}
			return resp, "", nil
		}
		if err == nil {
			err = llm.ErrIncomplete
		}
		if cerr := ctx.Err(); cerr != nil {
			return nil, partial.String(), cerr
		}
		lerr, ok := llm.AsError(err)
		if !ok || !lerr.Retryable() || attempt >= policy.MaxAttempts {
			return nil, partial.String(), err
		}
		wait, ok := policy.wait(attempt, lerr.RetryAfter)
		if !ok {
			return nil, partial.String(), fmt.Errorf("%w (asked to wait %s, longer than the %s limit)", err, lerr.RetryAfter, policy.Cap)
		}
		info := &RetryInfo{Attempt: attempt, Wait: wait, Err: err, Reset: partial.Len() > 0}
		if !x.emit(Event{Kind: EventRetry, Retry: info}) {
			return nil, "", errStopped
		}
		if err := x.r.sleep(ctx, wait); err != nil {
			return nil, "", err
		}
	}
}

// thinkingPreview is how much of the reasoning so far an EventThinking
// carries, in bytes: a preview to show while the model thinks, not a
// transcript, and cheap however long the thinking runs.
const thinkingPreview = 600

// tail is the end of s, at most n bytes, starting at a whole character.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}
