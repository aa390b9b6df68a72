package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/parleybot/parley/agent/llm"
)

// The questions the chat core asks about a session, answered here so that
// only the agent knows how a transcript is laid out.

// ImagelessReader is implemented by session stores that can read a
// transcript without its pictures' bytes (store.DB): the questions below
// need the messages, and pictures only by their size.
type ImagelessReader interface {
	MessagesWithoutImageData(ctx context.Context, sessionID string) ([]llm.Message, error)
}

// transcript is the session's transcript for the questions below: without
// its pictures' bytes where the store can leave them out.
func (r *Runner) transcript(ctx context.Context, sessionID string) ([]llm.Message, error) {
	if ir, ok := r.Sessions.(ImagelessReader); ok {
		return ir.MessagesWithoutImageData(ctx, sessionID)
	}
	return r.Sessions.Messages(ctx, sessionID)
}

// Phase is how far a turn got, as its session's transcript records it.
type Phase int

const (
	// PhaseNotStarted: the inbound message is not in the transcript.
	PhaseNotStarted Phase = iota
	// PhaseOpen: the message is in the transcript but its answer is not
	// complete (cut off, or tool calls without results, some perhaps
	// waiting for an approval): a Resume turn continues it.
	PhaseOpen
	// PhaseAnswered: the model finished its answer; Progress.Answer holds it.
	PhaseAnswered
)

func (p Phase) String() string {
	switch p {
	case PhaseOpen:
		return "open"
	case PhaseAnswered:
		return "answered"
	}
	return "not started"
}

// Progress is how far the turn of one inbound message got.
type Progress struct {
	Phase  Phase
	Answer string // the final answer, when Phase is PhaseAnswered
}

// Progress reports how far the turn started by the inbound message key got
// in the session: the core asks after a crash, to start, continue or only
// re-deliver it.
func (r *Runner) Progress(ctx context.Context, sessionID, key string) (Progress, error) {
	msgs, err := r.transcript(ctx, sessionID)
	if err != nil {
		return Progress{}, fmt.Errorf("load session: %w", err)
	}
	at := -1
	for i, m := range msgs {
		if m.Role == llm.RoleUser && m.Key == key {
			at = i
		}
	}
	if at < 0 {
		return Progress{Phase: PhaseNotStarted}, nil
	}
	return progressAfter(msgs[at+1:]), nil
}

// AfterCall reports how far the session got after the tool call callID:
// PhaseNotStarted while the call has no result (or is not in the session),
// PhaseOpen once it has one but no final answer follows, PhaseAnswered
// when the model finished after it. The core asks when it continues a
// session from a decided approval.
func (r *Runner) AfterCall(ctx context.Context, sessionID, callID string) (Progress, error) {
	msgs, err := r.transcript(ctx, sessionID)
	if err != nil {
		return Progress{}, fmt.Errorf("load session: %w", err)
	}
	for i, m := range msgs {
		if m.Role == llm.RoleTool && m.ToolCallID == callID {
			return progressAfter(msgs[i:]), nil
		}
	}
	return Progress{Phase: PhaseNotStarted}, nil
}

// progressAfter reads the messages that follow a turn's start: answered
// when the last is the model's complete final text.
func progressAfter(after []llm.Message) Progress {
	if len(after) == 0 {
		return Progress{Phase: PhaseOpen}
	}
	last := after[len(after)-1]
	if last.Role != llm.RoleAssistant || len(last.ToolCalls) > 0 || last.Text == "" ||
		strings.HasSuffix(last.Text, InterruptedMarker) {
		return Progress{Phase: PhaseOpen}
	}
	return Progress{Phase: PhaseAnswered, Answer: last.Text}
}

// CallOpen reports whether the tool call callID of the session still has
// no result: a decision that arrives for it may continue the session.
func (r *Runner) CallOpen(ctx context.Context, sessionID, callID string) (bool, error) {
	msgs, err := r.transcript(ctx, sessionID)
	if err != nil {
		return false, fmt.Errorf("load session: %w", err)
	}
	called := false
	for _, m := range msgs {
		if m.Role == llm.RoleTool && m.ToolCallID == callID {
			return false, nil
		}
		for _, c := range m.ToolCalls {
			called = called || c.ID == callID
		}
	}
	return called, nil
}

// CloseOpenCalls gives every tool call of the session's last step that
// has no result an interrupted one. A stopped turn means stop: a late click
// on an approval that was pending then does not restart the task.
func (r *Runner) CloseOpenCalls(ctx context.Context, sessionID string) error {
	msgs, err := r.transcript(ctx, sessionID)
	if err != nil {
		return fmt.Errorf("load session: %w", err)
	}
	if !endsInCallGroup(msgs) {
		return nil
	}
	healed := Heal(msgs)
	if len(healed) <= len(msgs) {
		return nil
	}
	if err := r.Sessions.AppendMessages(ctx, sessionID, healed[len(msgs):]...); err != nil {
		return fmt.Errorf("close open calls: %w", err)
	}
	return nil
}

// endsInCallGroup reports whether the transcript ends inside a tool-call
// group (an assistant message with calls, then some of their results), so
// that appending the healed results keeps the history in order.
func endsInCallGroup(msgs []llm.Message) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		switch msgs[i].Role {
		case llm.RoleTool:
			continue
		case llm.RoleAssistant:
			return len(msgs[i].ToolCalls) > 0
		default:
			return false
		}
	}
	return false
}

// SessionSize is how large a session is: its messages and their estimated tokens.
type SessionSize struct {
	Messages int
	Tokens   int
	// Window is the model's context window in tokens; 0 when not known.
	Window int
	// Usage is what the session's model calls cost, as the providers
	// counted (cached input tokens included); compacted answers count too.
	Usage llm.Usage
	// Model is the model that wrote the last answer, "" if none is known.
	Model string
}

// Measure measures the session, for /status.
func (r *Runner) Measure(ctx context.Context, sessionID string) (SessionSize, error) {
	msgs, err := r.transcript(ctx, sessionID)
	if err != nil {
		return SessionSize{}, fmt.Errorf("load session: %w", err)
	}
	size := SessionSize{Messages: len(msgs), Tokens: EstimateMessages(msgs), Window: r.ContextWindow}
	if u := usageOf(msgs); u != nil {
		size.Usage = *u
	}
	for _, m := range msgs {
		if m.Role == llm.RoleAssistant && m.Model != "" {
			size.Model = m.Model
		}
	}
	return size, nil
}
