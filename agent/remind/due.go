package remind

import (
	"strconv"
	"time"
)

// LateAfter is how late an occurrence may be and still count as on time:
// the loop wakes on the due time, but a claim and a delivery take a moment.
const LateAfter = time.Minute

// Decision is what to do about an item's occurrence at some moment.
type Decision struct {
	// Deliver: the occurrence is due and within grace; deliver it.
	Deliver bool
	// Late is how late the occurrence is, when that is more than
	// LateAfter (so the delivery can say so); zero otherwise.
	Late time.Duration
	// Missed: the occurrence is older than grace. It is reported once as
	// missed ("I was offline at 09:00"), never replayed: a schedule's
	// turn is not run, a reminder's text is given as missed.
	Missed bool
	// Next is the item's next occurrence after this one: the first one
	// after now, so that every occurrence missed in between is skipped
	// (they are not reported one by one). Unchanged when nothing is due.
	Next time.Time
	// Done: the item has no more occurrences (a one-off that fired).
	Done bool
}

// Due decides about item's current occurrence (item.Next) at now. Before
// item.Next nothing is due: the Decision only carries Next. After it, the
// occurrence is delivered when no more than grace late, missed otherwise,
// and the item advances: a recurrence to its first occurrence after now,
// a one-off to Done. Due does not look at item.Status.
func Due(item Item, now time.Time, grace time.Duration) Decision {
	if now.Before(item.Next) {
		return Decision{Next: item.Next}
	}
	d := judge(item.Next, now, grace)
	if n, ok := Next(item, now); ok {
		d.Next = n
	} else {
		d.Done = true
	}
	return d
}

// judge is the lateness part of a Decision: an occurrence at occ,
// delivered at now.
func judge(occ, now time.Time, grace time.Duration) Decision {
	late := max(now.Sub(occ), 0)
	d := Decision{Deliver: late <= grace, Missed: late > grace}
	if late > LateAfter {
		d.Late = late
	}
	return d
}

// Claim is one occurrence of one item, claimed for delivery: recorded
// durably before anything is sent, so it is delivered at least once.
type Claim struct {
	// Item is the item as it was when claimed: Item.Next is Occurrence.
	Item Item
	// Occurrence is the due time being delivered, UTC.
	Occurrence time.Time
	// Decision is how it was judged when claimed (Judge re-judges it
	// when delivered later) and where the item moved on to.
	Decision Decision
}

// Key names the claim uniquely and stably: the idempotency key for
// whatever Deliver produces (an outbox record, an inbox item), so that
// delivering a claim twice produces its message or run once.
func (c Claim) Key() string {
	return "remind:" + strconv.FormatInt(c.Item.ID, 10) + ":" + strconv.FormatInt(c.Occurrence.UnixMilli(), 10)
}

// Judge returns c with its lateness judged anew at now: a claim delivered
// long after it was made (a retry after an outage, a restart after a
// crash) is late, or missed, by now's measure. Next and Done are kept:
// the item advanced when it was claimed.
func (c Claim) Judge(now time.Time, grace time.Duration) Claim {
	j := judge(c.Occurrence, now, grace)
	c.Decision.Deliver, c.Decision.Late, c.Decision.Missed = j.Deliver, j.Late, j.Missed
	return c
}
