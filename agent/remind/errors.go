package remind

import "errors"

// Sentinel errors, for errors.Is. The errors this package returns wrap
// one of them with words a person can act on.
var (
	// ErrInvalid: a time, duration or cron expression that does not
	// parse, or an item missing what it needs.
	ErrInvalid = errors.New("invalid")
	// ErrPast: the time asked for has already passed.
	ErrPast = errors.New("that time is in the past")
	// ErrNever: a recurrence that never fires (e.g. "0 0 30 2 *").
	ErrNever = errors.New("the schedule never fires")
	// ErrTooOften: a recurrence more frequent than the configured minimum.
	ErrTooOften = errors.New("the schedule runs too often")
	// ErrCap: the owner already has as many items in the scope as allowed.
	ErrCap = errors.New("too many reminders and schedules")
	// ErrFinished: the item is done or cancelled, so it cannot be paused,
	// resumed or cancelled again.
	ErrFinished = errors.New("the item is done or cancelled")
)
