package remind

import (
	"fmt"
	"time"

	_ "time/tzdata" // zones load even where the system has no zoneinfo (slim containers)
)

// Kind is what an item does when it is due.
type Kind string

const (
	// KindReminder posts Text, mentioning Targets.
	KindReminder Kind = "reminder"
	// KindSchedule runs a turn with Text as its instruction.
	KindSchedule Kind = "schedule"
)

// Status is where an item is in its life.
type Status string

const (
	StatusActive    Status = "active"    // waiting for Next
	StatusPaused    Status = "paused"    // kept, not claimed; Resume recomputes Next
	StatusDone      Status = "done"      // a one-off that fired, or a recurrence with no more occurrences
	StatusCancelled Status = "cancelled" // cancelled by a person
)

// MaxFailures is how many consecutive failed runs pause a schedule, so a
// broken instruction does not fail every day unattended.
const MaxFailures = 3

// Place is where an item is delivered.
type Place struct {
	Platform string
	Space    string
	Chat     string
	Thread   string
	// Direct: a private chat with the owner.
	Direct bool
}

// Item is one reminder or scheduled run.
type Item struct {
	ID   int64
	Kind Kind
	// Scope is the scope key the item belongs to ("space:slack:T1",
	// "person:telegram:101"); opaque here.
	Scope string
	// Owner is the creator's user key ("slack:U1"): who may change it,
	// and whom a scheduled turn acts for.
	Owner string
	// OwnerName is the owner's display name when the item was made: what
	// a scheduled turn calls them.
	OwnerName string
	// Targets are the user keys a reminder mentions.
	Targets []string
	Place   Place
	// Text is the reminder's text or the schedule's instruction.
	Text string
	// Spec is a 5-field cron expression; "" for a one-off.
	Spec string
	// Zone is the IANA zone Spec is evaluated in (and the one a person
	// sees times in).
	Zone string
	// Next is the next due occurrence, UTC.
	Next   time.Time
	Status Status
	// CreatedAt is when it was added.
	CreatedAt time.Time
	// LastRun, LastResult and Failures are a schedule's latest run: its
	// time, what it said, and how many runs in a row failed.
	LastRun    time.Time
	LastResult string
	Failures   int
}

// Recurring reports whether the item repeats.
func (it Item) Recurring() bool { return it.Spec != "" }

// Location is the item's zone. "" and "Local" are refused: they would
// mean the server's zone, not the person's.
func (it Item) Location() (*time.Location, error) {
	if it.Zone == "" || it.Zone == "Local" {
		return nil, fmt.Errorf("%w: time zone %q: want an IANA name such as \"Europe/Berlin\"", ErrInvalid, it.Zone)
	}
	loc, err := time.LoadLocation(it.Zone)
	if err != nil {
		return nil, fmt.Errorf("%w: time zone %q: %v", ErrInvalid, it.Zone, err)
	}
	return loc, nil
}

// Validate reports what a new item lacks or gets wrong, wrapping
// ErrInvalid. An empty Status counts as active.
func (it Item) Validate() error {
	switch {
	case it.Kind != KindReminder && it.Kind != KindSchedule:
		return fmt.Errorf("%w: kind %q (want %q or %q)", ErrInvalid, it.Kind, KindReminder, KindSchedule)
	case it.Scope == "":
		return fmt.Errorf("%w: no scope", ErrInvalid)
	case it.Owner == "":
		return fmt.Errorf("%w: no owner", ErrInvalid)
	case it.Text == "":
		return fmt.Errorf("%w: no text", ErrInvalid)
	case it.Place.Platform == "":
		return fmt.Errorf("%w: no platform to deliver on", ErrInvalid)
	case it.Next.IsZero():
		return fmt.Errorf("%w: no due time", ErrInvalid)
	}
	switch it.Status {
	case "", StatusActive, StatusPaused, StatusDone, StatusCancelled:
	default:
		return fmt.Errorf("%w: status %q", ErrInvalid, it.Status)
	}
	loc, err := it.Location()
	if err != nil {
		return err
	}
	if it.Spec != "" {
		if _, err := parseCron(it.Spec, loc); err != nil {
			return err
		}
	}
	return nil
}
