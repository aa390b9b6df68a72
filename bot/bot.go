package bot

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/parleybot/parley/agent"
)

// Reply is how an adapter shows one answer as it is produced. The console
// writes to the terminal; chat platforms will send and edit messages.
type Reply interface {
	// Delta appends streamed text.
	Delta(ctx context.Context, text string) error
	// Reset discards the text streamed so far: the model call is being
	// retried and will stream its answer again.
	Reset(ctx context.Context) error
	// Progress shows a transient status line (a tool running, a retry).
	Progress(ctx context.Context, status string) error
	// Finish shows the final text of the answer.
	Finish(ctx context.Context, final string) error
}

// Confirmer is implemented by Replies that can ask a person to approve a
// tool call (buttons, a y/N prompt). A Reply without it cannot approve
// anything, and tools that need approval are refused.
type Confirmer interface {
	Confirm(ctx context.Context, p ApprovalPrompt) (approved bool, err error)
}

// ApprovalPrompt is what a person sees when asked to approve a tool call.
type ApprovalPrompt struct {
	Tool      string
	Summary   string
	Requester string
}

// Bot is the platform-neutral chat core.
type Bot struct {
	sessions SessionMap
	memory   agent.MemoryStore
	runner   *agent.Runner
	limits   agent.MemoryLimits

	mu     sync.Mutex
	active map[string]Reply // session id → the reply of its running turn
}

// New returns a Bot. It installs itself as the runner's Approver, so
// approvals are routed to the Reply of the turn that asked.
func New(sessions SessionMap, memory agent.MemoryStore, runner *agent.Runner, limits agent.MemoryLimits) *Bot {
	b := newCommands(sessions, memory, limits)
	b.runner = runner
	runner.Approver = b
	return b
}

// newCommands returns a Bot that only runs the shared commands.
func newCommands(sessions SessionMap, memory agent.MemoryStore, limits agent.MemoryLimits) *Bot {
	return &Bot{sessions: sessions, memory: memory, limits: limits, active: map[string]Reply{}}
}

// Converse answers m, showing the answer through r. It returns when the
// answer is complete, the context ends or the run fails.
func (b *Bot) Converse(ctx context.Context, m Message, r Reply) error {
	sid, err := b.sessions.SessionFor(ctx, m.Thread)
	if err != nil {
		return fmt.Errorf("session for %s: %w", m.Thread, err)
	}
	b.mu.Lock()
	if _, busy := b.active[sid]; busy {
		b.mu.Unlock()
		return ErrBusy
	}
	b.active[sid] = r
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.active, sid)
		b.mu.Unlock()
	}()

	turn := agent.Turn{
		SessionID: sid,
		Caller:    agent.Caller{SessionID: sid, UserKey: m.User.Key(), UserName: m.User.Name},
		Place:     agent.Place{Platform: m.Thread.Platform, ChatName: m.Place.ChatName, ChatKind: m.Place.ChatKind, Thread: m.Place.Thread},
		Text:      m.Text,
	}
	for ev, err := range b.runner.Run(ctx, turn) {
		if err != nil {
			return err
		}
		if err := show(ctx, r, ev); err != nil {
			return fmt.Errorf("show reply: %w", err)
		}
	}
	return nil
}

// ErrBusy is returned when a conversation already has a running turn.
var ErrBusy = errors.New("a reply is still being written in this conversation")

func show(ctx context.Context, r Reply, ev agent.Event) error {
	switch ev.Kind {
	case agent.EventText:
		return r.Delta(ctx, ev.Text)
	case agent.EventRetry:
		if ev.Retry.Reset {
			if err := r.Reset(ctx); err != nil {
				return err
			}
		}
		return r.Progress(ctx, fmt.Sprintf("model call failed (%v); retrying in %s", ev.Retry.Err, ev.Retry.Wait.Round(100*time.Millisecond)))
	case agent.EventToolStart:
		return r.Progress(ctx, "running "+ev.Tool.Name+"…")
	case agent.EventToolEnd:
		if ev.IsError {
			return r.Progress(ctx, ev.Tool.Name+" failed: "+firstLine(ev.Result))
		}
	case agent.EventCompaction:
		return r.Progress(ctx, fmt.Sprintf("conversation compacted (%d → %d tokens)", ev.Compaction.Before, ev.Compaction.After))
	case agent.EventDone:
		return r.Finish(ctx, ev.Text)
	}
	return nil
}

// Approve implements agent.Approver by asking the Reply of the session's
// running turn.
func (b *Bot) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Decision, error) {
	b.mu.Lock()
	r := b.active[req.SessionID]
	b.mu.Unlock()
	c, ok := r.(Confirmer)
	if !ok {
		return agent.Decision{}, errors.New("this conversation cannot show approval prompts")
	}
	approved, err := c.Confirm(ctx, ApprovalPrompt{Tool: req.Call.Name, Summary: req.Summary, Requester: req.Caller.UserName})
	if err != nil {
		return agent.Decision{}, err
	}
	return agent.Decision{Approved: approved, By: req.Caller.UserName}, nil
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}
