package approvals

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/parleybot/parley/chat"
)

// msgNoSuchApproval answers a decision on an id no approval has.
const msgNoSuchApproval = "No such approval."

// Outcome is what a decision made away from the approval's message came
// to, for the person who made it: no one else is told.
type Outcome struct {
	// Decided reports whether this call decided the approval.
	Decided bool
	// Status is the approval's status after the call; "" when there is
	// no such approval.
	Status string
	// Text says what happened in one plain sentence ("Approved.", "Already
	// denied by Ana.", who may decide when the decider may not).
	Text string
}

// Decide decides approval id as by, from somewhere other than its message:
// via names where ("console"), and the approval's message then reads
// "Approved by <name> (console)". The rules are a click's: by must be one
// who may decide it (a private approval is its requester's alone), it
// must still be pending, and past its deadline it expires instead; a
// decision reaches the waiting turn, or the Resumer, as a click's does.
// Unlike a click, nothing is said in the chat: the caller shows the
// Outcome. err is a storage failure only.
func (a *Approvals) Decide(ctx context.Context, id string, by chat.User, approve bool, via string) (Outcome, error) {
	if !validApprovalID(id) {
		return Outcome{Text: msgNoSuchApproval}, nil
	}
	rec, found, err := a.find(ctx, id)
	if err != nil {
		return Outcome{}, err
	}
	if !found {
		return Outcome{Text: msgNoSuchApproval}, nil
	}
	v, rec, err := a.attempt(ctx, rec, by, approve, via)
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Decided: v == decided, Status: rec.Status}
	switch v {
	case refused:
		out.Text = a.refusalText(rec, approve)
	case taken:
		out.Text = alreadyDecidedText(rec)
	default:
		out.Text = "Denied."
		if approve {
			out.Text = "Approved."
		}
	}
	return out, nil
}

// verdict is what one attempt to decide an approval came to.
type verdict int

const (
	decided verdict = iota // this attempt decided it
	refused                // the decider may not decide it
	taken                  // it was decided (or has expired) already
)

// attempt holds by's decision on rec to the rules every decider is held
// to (who may decide, still pending, before its deadline) and settles rec
// if they allow. rec is returned as it then stands: with taken, its
// status says what became of it. An approval found past its deadline,
// which the sweep has not got to yet, is expired here.
func (a *Approvals) attempt(ctx context.Context, rec Record, by chat.User, approve bool, via string) (verdict, Record, error) {
	if !a.mayDecide(rec, by, approve) {
		return refused, rec, nil
	}
	if rec.Status == StatusPending && a.cfg.Now().Before(rec.ExpiresAt) {
		status := StatusDenied
		if approve {
			status = StatusApproved
		}
		won, err := a.settle(ctx, rec, status, by, via)
		if err != nil {
			return 0, rec, err
		}
		if won {
			rec.Status = status
			return decided, rec, nil
		}
		// Lost: someone decided first, or the deadline passed in between.
		now, found, err := a.cfg.Store.Approval(ctx, rec.ID)
		if err != nil {
			return 0, rec, fmt.Errorf("approvals: approval %s: %w", rec.ID, err)
		}
		if !found {
			return 0, rec, fmt.Errorf("approvals: approval %s vanished while decided", rec.ID)
		}
		rec = now
	}
	if rec.Status == StatusPending {
		// Only an expiry can still win, and if another one beat this
		// one the approval has expired all the same.
		if _, err := a.expire(ctx, rec); err != nil {
			return 0, rec, err
		}
		rec.Status = StatusExpired
	}
	return taken, rec, nil
}

// refusalText tells a decider who may not decide rec who may. Unlike the
// clicker, they see neither the message nor its "Only … can decide" line,
// so it names the tool and the keys of the people who could (the console
// is an operator's).
func (a *Approvals) refusalText(rec Record, approve bool) string {
	if rec.Private {
		return notAllowedText(rec)
	}
	var may []string
	for _, k := range append([]string{rec.Requester}, rec.Approvers...) {
		platform, id, _ := strings.Cut(k, ":")
		if !slices.Contains(may, k) && a.mayDecide(rec, chat.User{Platform: platform, ID: id}, approve) {
			may = append(may, k)
		}
	}
	verb := "approve"
	if !approve {
		verb = "deny"
	}
	who := toolName(rec.ToolName) + " needs one of: " + strings.Join(may, ", ")
	if len(may) == 0 {
		// The approvers configured when it was asked are no longer.
		who = "no one may " + verb + " " + toolName(rec.ToolName) + " now"
	}
	if approve && rec.Mandatory {
		return fmt.Sprintf("Only an approver can approve this (%s); %s can deny it.", who, plainText(requesterName(rec)))
	}
	return fmt.Sprintf("Only %s or an approver can %s this (%s).", plainText(requesterName(rec)), verb, who)
}
