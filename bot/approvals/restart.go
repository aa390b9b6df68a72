package approvals

import (
	"context"
	"fmt"
	"time"
)

// Pending counts the approvals of a session still waiting for a decision.
func (a *Approvals) Pending(ctx context.Context, sessionID string) (int, error) {
	recs, err := a.cfg.Store.SessionApprovals(ctx, sessionID)
	if err != nil {
		return 0, fmt.Errorf("approvals: pending in session %s: %w", sessionID, err)
	}
	n := 0
	for _, rec := range recs {
		if rec.Status == StatusPending {
			n++
		}
	}
	return n, nil
}

// Recover hands every approval decided at or after since to
// the Resumer. A crash between a decision and the run it
// resumes loses nothing this way; the core calls it once at startup, before
// clicks are taken, with since about one expiry period back. It may repeat a
// decision the core already acted on: the core resumes a session only while
// the decided call still has no result.
func (a *Approvals) Recover(ctx context.Context, since time.Time) error {
	if a.cfg.Resumer == nil {
		return nil
	}
	recs, err := a.cfg.Store.DecidedApprovals(ctx, since)
	if err != nil {
		return fmt.Errorf("approvals: recover: %w", err)
	}
	for _, rec := range recs {
		a.cfg.Resumer.ResumeDecided(ctx, rec)
	}
	return nil
}
