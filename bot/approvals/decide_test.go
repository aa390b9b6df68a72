package approvals_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/chat"
)

// decide decides approval id from the console as u.
func (h *apHarness) decide(id string, u chat.User, approve bool) approvals.Outcome {
	h.t.Helper()
	out, err := h.ap.Decide(h.t.Context(), id, u, approve, "console")
	if err != nil {
		h.t.Fatalf("Decide(%s) as %s: %v", id, u.Name, err)
	}
	return out
}

// TestApprovalDecideFromConsole: the console is held to the buttons'
// rules, and what it decides shows on the chat message as the console's.
func TestApprovalDecideFromConsole(t *testing.T) {
	approved := func(by string) *agent.Decision {
		return &agent.Decision{Approved: true, By: by, Summary: "rm -rf /tmp/x"}
	}
	tests := []struct {
		name               string
		mandatory, private bool
		user               chat.User
		approve            bool
		want               approvals.Outcome
		decision           *agent.Decision // nil: nothing changes
		edit               string          // the edited message's start; "": no edit
	}{
		{"approver approves", false, false, apAdmin, true,
			approvals.Outcome{Decided: true, Status: approvals.StatusApproved, Text: "Approved."},
			approved("Root"), "✅ **Approved by Root (console)** · `shell` · asked by Alice"},
		{"requester denies", false, false, apRequester, false,
			approvals.Outcome{Decided: true, Status: approvals.StatusDenied, Text: "Denied."},
			&agent.Decision{By: "Alice"}, "❌ **Denied by Alice (console)**"},
		{"non-approver approves", false, false, apStranger, true,
			approvals.Outcome{Status: approvals.StatusPending, Text: "Only Alice or an approver can approve this (shell needs one of: telegram:42, telegram:7)."},
			nil, ""},
		{"non-approver denies", false, false, apStranger, false,
			approvals.Outcome{Status: approvals.StatusPending, Text: "Only Alice or an approver can deny this (shell needs one of: telegram:42, telegram:7)."},
			nil, ""},
		{"same id on another platform", false, false, apLookalike, true,
			approvals.Outcome{Status: approvals.StatusPending, Text: "Only Alice or an approver can approve this (shell needs one of: telegram:42, telegram:7)."},
			nil, ""},
		{"mandatory: requester approves", true, false, apRequester, true,
			approvals.Outcome{Status: approvals.StatusPending, Text: "Only an approver can approve this (shell needs one of: telegram:7); Alice can deny it."},
			nil, ""},
		{"mandatory: approver approves", true, false, apAdmin, true,
			approvals.Outcome{Decided: true, Status: approvals.StatusApproved, Text: "Approved."},
			approved("Root"), "✅ **Approved by Root (console)**"},
		{"private: approver approves", false, true, apAdmin, true,
			approvals.Outcome{Status: approvals.StatusPending, Text: "Only Alice can decide this."},
			nil, ""},
		{"private: requester approves", false, true, apRequester, true,
			approvals.Outcome{Decided: true, Status: approvals.StatusApproved, Text: "Approved."},
			approved("Alice"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newAPHarness(t)
			h.mandatory, h.private = tt.mandatory, tt.private
			a := h.ask(h.sid, "call_1", "rm -rf /tmp/x")
			privates := len(h.ad.private())
			if diff := cmp.Diff(tt.want, h.decide(a.id, tt.user, tt.approve)); diff != "" {
				t.Errorf("Outcome (-want +got):\n%s", diff)
			}
			if n := len(h.ad.private()); n != privates {
				t.Errorf("%d private messages sent; the console's caller shows the outcome", n-privates)
			}
			edits := h.ad.edited()
			if tt.decision == nil {
				a.still(t)
				if got := h.status(a.id); got != approvals.StatusPending {
					t.Errorf("status = %s, want pending", got)
				}
				if len(edits) != 0 {
					t.Errorf("message edited: %+v", edits)
				}
				return
			}
			if d, err := a.result(t); err != nil || d != *tt.decision {
				t.Errorf("Approve = %+v, %v; want %+v", d, err, *tt.decision)
			}
			switch {
			case tt.edit == "" && len(edits) != 0:
				t.Errorf("message edited: %+v", edits)
			case tt.edit != "" && (len(edits) != 1 || edits[0].Ref != a.msg):
				t.Fatalf("edits = %+v, want one of %v", edits, a.msg)
			case tt.edit != "" && (!strings.HasPrefix(edits[0].Out.Text, tt.edit) || len(edits[0].Out.Buttons) != 0):
				t.Errorf("edited to %q with buttons %v; want it to start %q, no buttons", edits[0].Out.Text, edits[0].Out.Buttons, tt.edit)
			}
			h.noResume()
		})
	}
}

// TestApprovalDecideTaken: what the console is told about approvals it
// can no longer decide, and that telling changes nothing.
func TestApprovalDecideTaken(t *testing.T) {
	t.Run("already decided", func(t *testing.T) {
		h := newAPHarness(t)
		a := h.ask(h.sid, "call_1", "rm -rf /tmp/x")
		if handled, _, err := h.click(apRequester, "a:"+a.id, a.msg); !handled || err != nil {
			t.Fatalf("click = %t, %v", handled, err)
		}
		want := approvals.Outcome{Status: approvals.StatusApproved, Text: "Already approved by Alice."}
		if diff := cmp.Diff(want, h.decide(a.id, apAdmin, false)); diff != "" {
			t.Errorf("Outcome (-want +got):\n%s", diff)
		}
		if d, err := a.result(t); err != nil || !d.Approved {
			t.Errorf("Approve = %+v, %v", d, err)
		}
		if n := len(h.ad.edited()); n != 1 {
			t.Errorf("%d edits, want the click's 1", n)
		}
	})
	t.Run("expired before the sweep", func(t *testing.T) {
		h := newAPHarness(t)
		a := h.ask(h.sid, "call_1", "rm -rf /tmp/x")
		a.cancel() // no turn waits: nothing expires it on its own clock
		if _, err := a.result(t); err == nil {
			t.Fatal("Approve returned no error after cancel")
		}
		h.clock.Advance(apExpiry)
		want := approvals.Outcome{Status: approvals.StatusExpired, Text: "This approval has expired; nothing was run."}
		if diff := cmp.Diff(want, h.decide(a.id, apAdmin, true)); diff != "" {
			t.Errorf("Outcome (-want +got):\n%s", diff)
		}
		if got := h.status(a.id); got != approvals.StatusExpired {
			t.Errorf("status = %s, want expired", got)
		}
		if e := h.ad.edited(); len(e) != 1 || !strings.HasPrefix(e[0].Out.Text, "⌛ **Expired**") {
			t.Errorf("edits = %+v, want the message marked expired", e)
		}
		if rec := h.resumedRecord(); rec.Status != approvals.StatusExpired {
			t.Errorf("resumed with %+v, want the expiry", rec)
		}
	})
	for _, id := range []string{"0123456789abcdef0123456789abcdef", "../etc", ""} {
		t.Run("unknown id "+id, func(t *testing.T) {
			h := newAPHarness(t)
			want := approvals.Outcome{Text: "No such approval."}
			if diff := cmp.Diff(want, h.decide(id, apAdmin, true)); diff != "" {
				t.Errorf("Outcome (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApprovalDecideNoWaiter: decided from the console while no turn
// waits (the process restarted since it was asked), the decision goes to
// the Resumer, as a click's does.
func TestApprovalDecideNoWaiter(t *testing.T) {
	h := newAPHarness(t)
	a := h.ask(h.sid, "call_1", "rm -rf /tmp/x")
	h.restart()
	if out := h.decide(a.id, apAdmin, true); !out.Decided {
		t.Fatalf("Outcome = %+v", out)
	}
	if rec := h.resumedRecord(); rec.Status != approvals.StatusApproved || rec.DecidedByName != "Root" {
		t.Errorf("resumed with %+v", rec)
	}
}

// TestApprovalHistory: the listings the console pages read.
func TestApprovalHistory(t *testing.T) {
	h := newAPHarness(t)
	a := h.ask(h.sid, "call_1", "rm -rf /tmp/x")
	h.clock.Advance(time.Second)
	b := h.ask(h.sid, "call_2", "ls")
	pending, err := h.ap.AllPending(t.Context())
	if err != nil || len(pending) != 2 || pending[0].ID != a.id || pending[1].ID != b.id {
		t.Fatalf("AllPending = %+v, %v; want %s, %s", pending, err, a.id, b.id)
	}
	h.decide(b.id, apAdmin, true)
	h.clock.Advance(time.Second)
	h.decide(a.id, apRequester, false)
	hist, err := h.ap.History(t.Context(), approvals.HistoryFilter{}, 10)
	if err != nil || len(hist) != 2 || hist[0].ID != a.id || hist[1].ID != b.id {
		t.Fatalf("History = %+v, %v; want %s, %s, newest first", hist, err, a.id, b.id)
	}
	if _, err := h.ap.History(t.Context(), approvals.HistoryFilter{}, approvals.MaxHistory+1); err == nil {
		t.Error("History over MaxHistory: no error")
	}
	if _, err := h.ap.History(t.Context(), approvals.HistoryFilter{Status: approvals.StatusPending}, 10); err == nil {
		t.Error("History of pending ones: no error")
	}
}
