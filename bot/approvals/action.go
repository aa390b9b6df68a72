package approvals

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/parleybot/parley/chat"
)

// What a clicker is told, privately, when their click changes nothing.
const (
	msgNoLongerValid = "This approval is no longer valid."
	msgExpired       = "This approval has expired; nothing was run."
)

// HandleAction takes a click on an approval button. The payload is
// untrusted: it must name an existing approval, the click must be on that
// approval's own message, and the clicker must be its requester or an
// admin. Anything else changes nothing and the clicker alone is told why.
// handled reports whether this click decided the approval; err is a storage
// failure or a private answer that could not be delivered.
//
// Text in the conversation ("yes") never approves anything: besides a
// click, only Decide does (the operator's console), under the same rules.
func (a *Approvals) HandleAction(ctx context.Context, act chat.Action) (handled bool, err error) {
	id, approve, ok := parseApprovalData(act.Data)
	if !ok {
		return false, a.tell(ctx, act, msgNoLongerValid)
	}
	rec, found, err := a.find(ctx, id)
	if err != nil {
		return false, err
	}
	if !found || !rec.Private && !shownIn(rec, act.Message) {
		// A guessed or replayed id, or a real one pasted under another
		// message: indistinguishable from garbage, on purpose.
		return false, a.tell(ctx, act, msgNoLongerValid)
	}
	v, rec, err := a.attempt(ctx, rec, act.User, approve, "")
	switch {
	case err != nil:
		return false, err
	case v == refused:
		return false, a.tell(ctx, act, notAllowedText(rec))
	case v == taken:
		return false, a.tell(ctx, act, alreadyDecidedText(rec))
	case rec.Private:
		// No shared message changes to show it: the clicker is told.
		return true, a.tell(ctx, act, privateDecidedText(approve))
	}
	return true, nil
}

// mayDecide reports whether u may approve (or deny) rec. Approving takes
// someone rec lists as an approver who still may: a configured approver,
// or the requester where the approval is not mandatory. Denying is also
// the requester's right: stopping one's own request is never a risk. Keys
// carry the platform, so the same numeric id on another platform is
// someone else. A private approval is its requester's alone, both ways.
func (a *Approvals) mayDecide(rec Record, u chat.User, approve bool) bool {
	if u.Platform == "" || u.ID == "" {
		return false
	}
	k := u.Key()
	if rec.Private {
		return k == rec.Requester
	}
	if !approve && k == rec.Requester {
		return true
	}
	if !slices.Contains(rec.Approvers, k) {
		return false
	}
	return a.approvers[k] || k == rec.Requester && !rec.Mandatory
}

// shownIn reports whether the clicked message is one that shows rec. The
// platform, chat and message id identify a message on every platform
// (Slack ts, Telegram message_id and Discord snowflakes are unique within a
// channel); workspace and thread are not compared, since adapters may
// normalize them differently for a click than for a send.
func shownIn(rec Record, m chat.MessageRef) bool {
	if m.ID == "" {
		return false
	}
	for _, r := range rec.Refs {
		if r.ID == m.ID && r.Thread.Platform == m.Thread.Platform && r.Thread.Chat == m.Thread.Chat {
			return true
		}
	}
	return false
}

// tell answers the clicker alone.
func (a *Approvals) tell(ctx context.Context, act chat.Action, text string) error {
	if err := a.cfg.Outbound.Tell(ctx, act, text); err != nil {
		return fmt.Errorf("approvals: answer clicker: %w", err)
	}
	return nil
}

// parseApprovalData reads a button payload: "a:<id>" approves, "d:<id>"
// denies. Anything else, including an over-long payload, is not ours.
func parseApprovalData(data string) (id string, approve, ok bool) {
	if len(data) > chat.MaxButtonData {
		return "", false, false
	}
	switch {
	case strings.HasPrefix(data, ApproveData):
		id, approve = data[len(ApproveData):], true
	case strings.HasPrefix(data, DenyData):
		id = data[len(DenyData):]
	default:
		return "", false, false
	}
	if !validApprovalID(id) {
		return "", false, false
	}
	return id, approve, true
}

// find reads approval id. When its message exists on the platform but its
// ref is not recorded yet, it waits for the poster first: a click on that
// message is real, and a decision made elsewhere must edit it.
func (a *Approvals) find(ctx context.Context, id string) (rec Record, found bool, err error) {
	rec, found, err = a.cfg.Store.Approval(ctx, id)
	if err != nil {
		return rec, false, fmt.Errorf("approvals: approval %s: %w", id, err)
	}
	if found && len(rec.Refs) == 0 {
		rec, err = a.afterPosting(ctx, rec)
	}
	return rec, found, err
}

// afterPosting waits until rec's message, if it is being posted by this
// process, has its ref recorded, and returns the record as it is then.
func (a *Approvals) afterPosting(ctx context.Context, rec Record) (Record, error) {
	a.mu.Lock()
	posted := a.posting[rec.ID]
	a.mu.Unlock()
	if posted != nil {
		select {
		case <-posted:
		case <-ctx.Done():
			return rec, ctx.Err()
		}
	}
	// Read again even when nothing is being posted now: the poster may
	// have recorded the refs and left between the caller's read and the
	// look at posting above.
	now, _, err := a.cfg.Store.Approval(ctx, rec.ID)
	if err != nil {
		return rec, fmt.Errorf("approvals: approval %s: %w", rec.ID, err)
	}
	return now, nil
}
