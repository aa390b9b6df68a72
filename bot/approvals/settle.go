package approvals

import (
	"context"
	"fmt"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/chat"
)

// settle decides rec with status if it is still pending, and reports whether
// this call did. The winner shows the outcome on the approval message, then
// hands the decision to the waiting Approve or, with none waiting, to
// the Resumer. A loser changes nothing. via names where a decision was
// made when not on the message itself ("console"); the message says so.
func (a *Approvals) settle(ctx context.Context, rec Record, status string, by chat.User, via string) (bool, error) {
	at := a.cfg.Now()
	a.mu.Lock()
	won, err := a.cfg.Store.DecideApproval(ctx, rec.ID, status, by, at)
	var ch chan agent.Decision
	if err == nil && won {
		ch = a.waiters[rec.ID]
		delete(a.waiters, rec.ID)
	}
	a.mu.Unlock()
	if err != nil {
		return false, fmt.Errorf("approvals: %w", err)
	}
	if !won {
		return false, nil
	}
	rec.Status, rec.DecidedAt = status, at
	if status != StatusExpired {
		rec.DecidedBy, rec.DecidedByName = by.Key(), by.Name
	}
	a.cfg.Logger.Info("approval decided", "approval", rec.ID, "session", rec.SessionID,
		"tool", rec.ToolName, "status", status, "by", rec.DecidedBy, "via", via, "waiting", ch != nil)
	if a.cfg.Decided != nil {
		a.cfg.Decided(ctx, rec, via)
	}
	// The message shows the outcome before the tool runs. A failed edit
	// does not undo the decision: it is logged, and the decision stands.
	a.show(ctx, rec, via)
	switch {
	case ch != nil:
		ch <- rec.Decision() // buffered, and only ever sent to once
	case a.cfg.Resumer != nil:
		a.cfg.Resumer.ResumeDecided(ctx, rec)
	}
	return true, nil
}

// expire settles rec as expired: no one decided it in time.
func (a *Approvals) expire(ctx context.Context, rec Record) (bool, error) {
	return a.settle(ctx, rec, StatusExpired, chat.User{}, "")
}

// show edits the approval's status message (the last of its messages, the
// one with the buttons) to its current state, without buttons. The
// messages before it show the summary, which does not change.
func (a *Approvals) show(ctx context.Context, rec Record, via string) {
	if len(rec.Refs) == 0 {
		return
	}
	ref := rec.Refs[len(rec.Refs)-1]
	out := chat.Out{Text: approvalStatus(rec, a.cfg.Expiry, len(rec.Refs), via)}
	if err := a.cfg.Outbound.Edit(ctx, ref, out); err != nil {
		a.cfg.Logger.Error("edit approval message", "approval", rec.ID, "message", ref.ID, "err", err)
	}
}
