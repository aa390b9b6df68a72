package remind

import (
	"context"
	"time"
)

// Store is what the Loop needs (store.DB implements it).
type Store interface {
	// ClaimDue claims, in one transaction, up to limit active items due
	// at now (Next <= now), earliest first: it records a claim per
	// occurrence (once per item and occurrence, ever) and advances each
	// item as Due says with grace. It returns the new claims.
	ClaimDue(ctx context.Context, now time.Time, grace time.Duration, limit int) ([]Claim, error)
	// PendingClaims lists the claims not yet delivered, oldest first.
	// Their lateness is not judged (Claim.Judge does).
	PendingClaims(ctx context.Context) ([]Claim, error)
	// ClaimDelivered marks c delivered.
	ClaimDelivered(ctx context.Context, c Claim) error
	// NextItemDue is the earliest Next of the active items; false when
	// there is none.
	NextItemDue(ctx context.Context) (time.Time, bool, error)
}

// ItemStore is the whole of what the bot does with items (store.DB
// implements it). Methods taking an id return an error wrapping the
// store's not-found error for an unknown one.
type ItemStore interface {
	Store
	// AddItem adds it (its Status empty or active) and returns its id.
	// It refuses with ErrCap when the owner already has maxActive active
	// or paused items in the scope (maxActive <= 0: no cap).
	AddItem(ctx context.Context, it Item, maxActive int) (int64, error)
	// Item reads one item, whatever its status.
	Item(ctx context.Context, id int64) (Item, error)
	// Items lists scope's active and paused items, of owner (all owners
	// when owner is ""), by Next then ID.
	Items(ctx context.Context, scope, owner string) ([]Item, error)
	// CancelItem cancels an active or paused item (ErrFinished
	// otherwise), and drops its claims not yet delivered.
	CancelItem(ctx context.Context, id int64) error
	// PauseItem pauses an active item, or resumes a paused one; resuming
	// a recurrence moves Next to its first occurrence after now. It
	// returns the item as it now is.
	PauseItem(ctx context.Context, id int64, paused bool, now time.Time) (Item, error)
	// RecordItemRun records a scheduled run's outcome at now; the run
	// that makes MaxFailures failures in a row pauses the item and
	// returns paused = true.
	RecordItemRun(ctx context.Context, id int64, ok bool, result string, now time.Time) (paused bool, err error)
	// ReminderStats counts items for parley doctor.
	ReminderStats(ctx context.Context, now time.Time) (Stats, error)
}

// Stats is the state of all items, for parley doctor.
type Stats struct {
	Active, Paused, Done, Cancelled int
	// Next is the earliest Next of the active items; zero when none.
	Next time.Time
	// Overdue counts active items due more than LateAfter ago: the loop
	// should have claimed them (it is not running, or it is stuck).
	Overdue int
	// Undelivered counts claims not yet delivered.
	Undelivered int
}

// ItemFilter narrows AllItems; the zero filter is every active and paused
// item.
type ItemFilter struct {
	// Scope is one scope key; "" is every scope.
	Scope string
	// Owner is one owner's user key; "" is everyone's.
	Owner string
	// Kind is reminders or schedules; "" is both.
	Kind Kind
	// Offset skips that many items: where a page starts.
	Offset int
}

// ItemLister lists items across scopes, for the web console's Time page
// (store.DB implements it). The chat commands never need it: they show
// one scope, with ItemStore.Items.
type ItemLister interface {
	// AllItems lists up to limit active and paused items matching f, by
	// Scope, then Next, then ID, so a page groups them by place.
	AllItems(ctx context.Context, f ItemFilter, limit int) ([]Item, error)
}
