package bot

import (
	"context"
	"strings"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/bot/approvals"
)

// The audit log (docs/console.md#audit-log): one instance-wide trail of
// what was done and by whom — console actions now; tool calls, approvals,
// memory writes, skill and document changes, reminders and bindings as
// their parts learn to write it. Rows are only ever added.

// AuditEntry is one thing done.
type AuditEntry struct {
	ID int64 // assigned by the store, increasing
	At time.Time
	// Actor is who did it: "platform:id", or "operator" for whoever holds
	// the machine (parley console login without --as).
	Actor string
	// Action names what was done, dotted: "console.signin",
	// "approval.approve", "memory.forget".
	Action string
	// Target is what it was done to: an approval's id, a session id, a
	// person's key; "" when nothing in particular.
	Target string
	// Detail is a short free text for people; never a secret.
	Detail string
	// Via is where it was done: "console", "chat", "cli".
	Via string
}

// AuditFilter selects audit entries; zero fields select all.
type AuditFilter struct {
	Actor  string
	Action string // an exact action, or a prefix ending in "." ("approval.")
	Target string
	Since  time.Time
	Until  time.Time
	// Before pages back: only entries with ID < Before (0: from the newest).
	Before int64
}

// AuditLog keeps the audit log (both store engines implement it).
type AuditLog interface {
	// Audit adds e; its ID is the store's.
	Audit(ctx context.Context, e AuditEntry) error
	// AuditEntries lists the entries f selects, newest first, at most
	// limit (1 to 1000).
	AuditEntries(ctx context.Context, f AuditFilter, limit int) ([]AuditEntry, error)
}

// auditDetail bounds an entry's Detail: the log says what, the transcript
// says all.
const auditDetail = 300

// audit adds e to the audit log, if one is kept; a failure is logged and
// what was done stands.
func (r *Router) audit(ctx context.Context, e AuditEntry) {
	if r.cfg.Audit == nil {
		return
	}
	if e.At.IsZero() {
		e.At = r.cfg.Now()
	}
	if len(e.Detail) > auditDetail {
		e.Detail = strings.ToValidUTF8(e.Detail[:auditDetail], "") + "…"
	}
	if err := r.cfg.Audit.Audit(context.WithoutCancel(ctx), e); err != nil {
		r.log.Error("audit", "action", e.Action, "err", err)
	}
}

// auditDecision records an approval's decision, wherever it was made.
func (r *Router) auditDecision(ctx context.Context, rec approvals.Record, via string) {
	if via == "" {
		via = "chat"
	}
	actor := rec.DecidedBy
	if rec.Status == approvals.StatusExpired {
		actor, via = "parley", "expiry"
	}
	r.audit(ctx, AuditEntry{At: rec.DecidedAt, Actor: actor, Action: "approval." + rec.Status, Target: rec.ID,
		Detail: rec.ToolName + ": " + rec.Summary, Via: via})
}

// auditTool records a tool call a turn made for its author.
func (tr *turnRun) auditTool(ctx context.Context, ev agent.Event) {
	detail := string(ev.Tool.Arguments)
	if ev.IsError {
		detail += " (failed)"
	}
	tr.r.audit(ctx, AuditEntry{Actor: tr.m.User.Key(), Action: "tool.call", Target: ev.Tool.Name, Detail: detail, Via: "chat"})
}
