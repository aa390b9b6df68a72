package webconsole

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/webconsole/signin"
)

// Approvals is how the console lists and decides approvals: the chat
// core's (bot.Core), under the same approver rules as the buttons.
type Approvals interface {
	PendingApprovals(ctx context.Context) ([]approvals.Record, error)
	ApprovalHistory(ctx context.Context, f approvals.HistoryFilter, limit int) ([]approvals.Record, error)
	DecideApproval(ctx context.Context, id string, by chat.User, approve bool) (approvals.Outcome, error)
}

// UseApprovals gives the console the core's approvals, once it runs; until
// then the approvals page says there are none to decide here.
func (s *Server) UseApprovals(a Approvals) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.approvalsOf = a
}

func (s *Server) approvalSource() Approvals {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.approvalsOf
}

// approvals lists the pending approvals, with Approve and Deny, and the
// last decided ones (?status=, ?tool=).
func (s *Server) approvals(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	s.showApprovals(w, r, who, "")
}

func (s *Server) showApprovals(w http.ResponseWriter, r *http.Request, who *signin.Session, said string) {
	data := map[string]any{"Title": "Approvals", "Nav": "approvals", "Said": said, "Now": s.cfg.Now()}
	src := s.approvalSource()
	if src == nil {
		data["Off"] = true
		s.render(w, r, http.StatusOK, "approvals", who, data)
		return
	}
	pending, err := src.PendingApprovals(r.Context())
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	q := r.URL.Query()
	f := approvals.HistoryFilter{Status: q.Get("status"), ToolName: q.Get("tool")}
	if f.Check(pageSize) != nil {
		f.Status = "" // an unknown status from the URL: show them all
	}
	history, err := src.ApprovalHistory(r.Context(), f, pageSize)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	data["Pending"], data["History"], data["Filter"] = pending, history, f
	s.render(w, r, http.StatusOK, "approvals", who, data)
}

// decide approves or denies one approval as the signed-in person, and
// shows what came of it. The operator is no chat user, so no approver:
// to decide, sign in as one (parley console login --as).
func (s *Server) decide(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	src := s.approvalSource()
	if src == nil {
		s.fail(w, r, http.StatusServiceUnavailable, "Approvals are not running here yet.")
		return
	}
	var err error
	id, decision := r.PathValue("id"), r.PostFormValue("decision")
	if decision != "approve" && decision != "deny" {
		s.fail(w, r, http.StatusBadRequest, "Approve or deny?")
		return
	}
	by, _ := chat.ParseUserKey(who.User)
	if by.Name, err = s.cfg.Data.UserName(r.Context(), who.User); err != nil {
		s.serverError(w, r, err)
		return
	}
	out, err := src.DecideApproval(r.Context(), id, by, decision == "approve")
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	// The decision is in the audit log already: the approvals record
	// every one, wherever made (via "console").
	s.showApprovals(w, r, who, out.Text)
}

// left is how long until t, for people: "in 12 min", "expired".
func left(now, t time.Time) string {
	d := t.Sub(now)
	switch {
	case d <= 0:
		return "expired"
	case d < time.Minute:
		return "in under a minute"
	case d < time.Hour:
		return "in " + strconv.Itoa(int(d/time.Minute)) + " min"
	}
	return "in " + strconv.Itoa(int(d/time.Hour)) + " h"
}
