package rowdata

import (
	"fmt"
	"strings"
	"time"

	"github.com/parleybot/parley/agent/remind"
)

// ItemColumns are a reminders row in the order both engines scan it.
const ItemColumns = `id, kind, scope, owner, owner_name, targets, platform, space, chat, thread, direct,
	text, spec, zone, next, status, created_at, last_run, last_result, failures`

// KeepDelivered is how long a delivered claim's row is kept. While it is,
// the same item and occurrence cannot be claimed again, should the wall
// clock be set back and a recurrence come round to an occurrence it
// already delivered; after that it only takes room.
const KeepDelivered = 7 * 24 * time.Hour

// NewItem checks an item about to be added and fills in its defaults: an
// empty Status is active, and only active or paused items may be added; a
// zero CreatedAt is now.
func NewItem(it remind.Item, now func() time.Time) (remind.Item, error) {
	if it.Status == "" {
		it.Status = remind.StatusActive
	}
	if it.Status != remind.StatusActive && it.Status != remind.StatusPaused {
		return it, fmt.Errorf("%w: a new item cannot be %s", remind.ErrInvalid, it.Status)
	}
	if err := it.Validate(); err != nil {
		return it, err
	}
	if it.CreatedAt.IsZero() {
		it.CreatedAt = now()
	}
	return it, nil
}

// Pause pauses an active item (paused) or resumes a paused one, and
// reports whether that changed it; pausing a paused item or resuming an
// active one changes nothing. Resuming a recurrence moves Next to its
// first occurrence after now (those missed while paused are skipped, not
// reported) and clears Failures; a recurrence with no occurrence left is
// done. A resumed one-off keeps its time: if that passed, the loop finds
// it due and reports it late or missed.
func Pause(it *remind.Item, paused bool, now time.Time) (changed bool) {
	switch {
	case paused && it.Status == remind.StatusActive:
		it.Status = remind.StatusPaused
	case !paused && it.Status == remind.StatusPaused:
		it.Status, it.Failures = remind.StatusActive, 0
		if it.Recurring() {
			if next, ok := remind.Next(*it, now); ok {
				it.Next = next
			} else {
				it.Status = remind.StatusDone
			}
		}
	default:
		return false
	}
	return true
}

// Finished reports whether an item is done or cancelled: it can no
// longer be changed.
func Finished(it remind.Item) bool {
	return it.Status == remind.StatusDone || it.Status == remind.StatusCancelled
}

// PendingClaim is the claim of occurrence occ of it, read back before its
// delivery: the item as it was claimed (active, Next at the occurrence)
// and a Decision that says only where the item has moved on to (Next,
// Done); its lateness is for the deliverer to judge (remind.Claim.Judge).
func PendingClaim(it remind.Item, occ time.Time) remind.Claim {
	c := remind.Claim{Occurrence: occ}
	if it.Status == remind.StatusDone {
		c.Decision.Done = true // as ClaimDue says it: no Next
	} else {
		c.Decision.Next = it.Next
	}
	it.Next, it.Status = c.Occurrence, remind.StatusActive
	c.Item = it
	return c
}

// Qualified prefixes each of a comma-separated column list with table,
// for a join: Qualified("r", ItemColumns).
func Qualified(table, columns string) string {
	var out []string
	for c := range strings.SplitSeq(columns, ",") {
		out = append(out, table+"."+strings.TrimSpace(c))
	}
	return strings.Join(out, ", ")
}
