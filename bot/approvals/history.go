package approvals

import (
	"context"
	"fmt"
	"time"
)

// MaxHistory bounds one page of ApprovalHistory.
const MaxHistory = 500

// HistoryFilter chooses decided and expired approvals; a zero field
// chooses all.
type HistoryFilter struct {
	// Status is StatusApproved, StatusDenied or StatusExpired.
	Status string
	// Requester and DecidedBy are user keys ("telegram:42").
	Requester string
	DecidedBy string
	ToolName  string
	// Since keeps those decided at or after it.
	Since time.Time
}

// Check reports a filter or limit no store can answer: a status that is
// not a decision, a limit outside 1..MaxHistory. The stores call it, so
// both engines refuse the same things.
func (f HistoryFilter) Check(limit int) error {
	switch f.Status {
	case "", StatusApproved, StatusDenied, StatusExpired:
	default:
		return fmt.Errorf("approvals: history of status %q: not a decision", f.Status)
	}
	if limit < 1 || limit > MaxHistory {
		return fmt.Errorf("approvals: history limit %d: not within 1..%d", limit, MaxHistory)
	}
	return nil
}

// AllPending lists the approvals of every session still waiting for a
// decision, oldest first. Some may be past their deadline, which the next
// expiry sweep settles: deciding one now expires it.
func (a *Approvals) AllPending(ctx context.Context) ([]Record, error) {
	recs, err := a.cfg.Store.UndecidedApprovals(ctx)
	if err != nil {
		return nil, fmt.Errorf("approvals: pending: %w", err)
	}
	return recs, nil
}

// History lists decided and expired approvals that f lets through, newest
// decision first, at most limit (1..MaxHistory) of them.
func (a *Approvals) History(ctx context.Context, f HistoryFilter, limit int) ([]Record, error) {
	if err := f.Check(limit); err != nil {
		return nil, err
	}
	recs, err := a.cfg.Store.ApprovalHistory(ctx, f, limit)
	if err != nil {
		return nil, fmt.Errorf("approvals: history: %w", err)
	}
	return recs, nil
}
