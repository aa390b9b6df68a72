package approvals

import (
	"context"
	"errors"
	"fmt"
)

// ExpireDue expires every pending approval whose deadline has passed: it
// marks each expired (losing to any click that got there first), edits its
// message and hands the Expired decision to the waiting Approve, or to
// the Resumer when none waits (approvals asked before a
// restart). The core calls it periodically, and once at startup. An
// Approve that is waiting expires on its own clock even without it.
func (a *Approvals) ExpireDue(ctx context.Context) error {
	due, err := a.cfg.Store.ExpiredApprovals(ctx, a.cfg.Now())
	if err != nil {
		return fmt.Errorf("approvals: expire: %w", err)
	}
	var errs []error
	for _, rec := range due {
		if _, err := a.expire(ctx, rec); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
