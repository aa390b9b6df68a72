package remind

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// schedule is a parsed recurrence in its zone.
type schedule struct {
	spec  string // normalized: fields separated by single spaces
	sched cron.Schedule
	loc   *time.Location
	// fixedHour: the hour field is not "*", so the schedule names
	// wall-clock times, which fire once even on the night they occur
	// twice.
	fixedHour bool
}

// starBit is robfig/cron's mark of a field given as "*" (or "?").
const starBit = 1 << 63

// parseCron reads a standard 5-field expression or a descriptor, to be
// evaluated in loc. Refused: a CRON_TZ= or TZ= prefix (the zone is the
// person's, set apart from the expression) and "@every" (its occurrences
// count from whenever it was last evaluated, so they would drift after
// every restart or missed run instead of keeping to the clock).
func parseCron(spec string, loc *time.Location) (schedule, error) {
	norm := strings.Join(strings.Fields(spec), " ")
	switch {
	case norm == "":
		return schedule{}, fmt.Errorf("%w: empty cron expression", ErrInvalid)
	case strings.HasPrefix(norm, "TZ=") || strings.HasPrefix(norm, "CRON_TZ="):
		return schedule{}, fmt.Errorf("%w: cron %q: no time zone in the expression: it runs in the person's own zone", ErrInvalid, spec)
	case strings.HasPrefix(norm, "@every"):
		return schedule{}, fmt.Errorf(`%w: cron %q: "@every" is not supported: use five fields, e.g. "0 */2 * * *" for every two hours`, ErrInvalid, spec)
	}
	s, err := cron.ParseStandard(norm)
	if err != nil {
		return schedule{}, fmt.Errorf(`%w: cron %q: %v (want five fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5")`, ErrInvalid, spec, err)
	}
	ss, ok := s.(*cron.SpecSchedule)
	fixed := ok && ss.Hour&starBit == 0
	return schedule{spec: norm, sched: s, loc: loc, fixedHour: fixed}, nil
}

// next is the first occurrence strictly after t, UTC. The expression is
// evaluated on the wall clock of s.loc (robfig/cron treats a schedule
// without its own zone as local to the time it is given), so "0 9 * * *"
// is 09:00 there in summer and in winter. On the night the clocks jump
// forward, a time inside the gap (02:30 in Europe/Berlin) does not occur
// that day. On the night they fall back, a time that occurs twice fires
// once, the first time, as classic cron does; robfig/cron alone would
// fire it twice. A schedule whose hour field is "*" keeps to the clock
// through the repeated hour: "0 * * * *" fires at 02:00 summer time and
// 02:00 winter time, an hour apart.
func (s schedule) next(t time.Time) (time.Time, error) {
	n := s.sched.Next(t.In(s.loc))
	for s.fixedHour && !n.IsZero() && repeatsWall(n) {
		n = s.sched.Next(n)
	}
	if n.IsZero() {
		// robfig/cron looks five years ahead.
		return time.Time{}, fmt.Errorf("%w: cron %q has no occurrence in the next five years", ErrNever, s.spec)
	}
	return n.UTC(), nil
}

// repeatsWall reports whether n's wall-clock reading (in n's zone)
// already occurred earlier, before the clocks fell back. Then an instant
// before n, by the size of the fall-back, read the same on the clock of
// the earlier offset.
func repeatsWall(n time.Time) bool {
	_, off := n.Zone()
	// Three hours back covers every fall-back there is (at most two
	// hours) and the time since.
	_, before := n.Add(-3 * time.Hour).Zone()
	if before <= off {
		return false
	}
	_, twin := n.Add(-time.Duration(before-off) * time.Second).Zone()
	return twin == before
}

// Next is item's next occurrence strictly after after, evaluated in
// item.Zone; false for a one-off, and for a recurrence that never fires
// again or whose spec or zone no longer parse (Validate refuses those on
// the way in).
func Next(item Item, after time.Time) (time.Time, bool) {
	if !item.Recurring() {
		return time.Time{}, false
	}
	loc, err := item.Location()
	if err != nil {
		return time.Time{}, false
	}
	s, err := parseCron(item.Spec, loc)
	if err != nil {
		return time.Time{}, false
	}
	n, err := s.next(after)
	if err != nil {
		return time.Time{}, false
	}
	return n, true
}

// intervalSamples is how many occurrences CheckInterval looks at: enough
// to catch "*/5 * * * *" and "0,1 9 * * *" alike, few enough to be cheap.
const intervalSamples = 20

// CheckInterval refuses, with ErrTooOften naming min, a recurrence whose
// gaps between its next occurrences after from (evaluated in loc) are
// ever shorter than min. A min of zero or less allows anything.
func CheckInterval(spec string, loc *time.Location, from time.Time, min time.Duration) error {
	if min <= 0 {
		return nil
	}
	s, err := parseCron(spec, loc)
	if err != nil {
		return err
	}
	prev, err := s.next(from)
	if err != nil {
		return err
	}
	for range intervalSamples {
		n, err := s.next(prev)
		if err != nil {
			return nil // no more occurrences: no gap too short
		}
		// A gap counts as the longer of elapsed and wall-clock time, so
		// that a daily run across the 23-hour day, or an hourly one
		// through the repeated hour, is not taken for a frequent one.
		if gap := max(n.Sub(prev), wallGap(prev, n, loc)); gap < min {
			return fmt.Errorf("%w: %q runs %s apart at times; the shortest interval allowed is %s",
				ErrTooOften, s.spec, gap, min)
		}
		prev = n
	}
	return nil
}

// wallGap is how far apart a and b read on loc's wall clock.
func wallGap(a, b time.Time, loc *time.Location) time.Duration {
	_, oa := a.In(loc).Zone()
	_, ob := b.In(loc).Zone()
	return b.Sub(a) + time.Duration(ob-oa)*time.Second
}
