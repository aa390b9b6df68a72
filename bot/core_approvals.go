package bot

import (
	"context"

	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/chat"
)

// msgApprovalsOff answers a decision where the core asks no approvals.
const msgApprovalsOff = "Approvals are off here."

// DecideApproval decides approval id as by from the operator's console,
// under the rules its buttons follow (approvals.Approvals.Decide): its
// message then reads "Approved by <name> (console)", and the turn it held
// goes on as after a click. The Outcome is for the caller to show.
func (c *Core) DecideApproval(ctx context.Context, id string, by chat.User, approve bool) (approvals.Outcome, error) {
	if c.approvals == nil {
		return approvals.Outcome{Text: msgApprovalsOff}, nil
	}
	return c.approvals.Decide(ctx, id, by, approve, "console")
}

// PendingApprovals lists the approvals of every conversation still
// waiting for a decision, oldest first; none where approvals are off.
func (c *Core) PendingApprovals(ctx context.Context) ([]approvals.Record, error) {
	if c.approvals == nil {
		return nil, nil
	}
	return c.approvals.AllPending(ctx)
}

// ApprovalHistory lists decided and expired approvals that f lets
// through, newest decision first, at most limit (1..approvals.MaxHistory);
// none where approvals are off.
func (c *Core) ApprovalHistory(ctx context.Context, f approvals.HistoryFilter, limit int) ([]approvals.Record, error) {
	if c.approvals == nil {
		return nil, nil
	}
	return c.approvals.History(ctx, f, limit)
}
