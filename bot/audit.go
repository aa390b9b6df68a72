package bot

import (
	"context"
	"time"
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
