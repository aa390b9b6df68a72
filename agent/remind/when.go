package remind

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// When is a due time as a person (or the model) gives it: exactly one of
// At, In and Cron is set.
type When struct {
	// At is a time: "2006-01-02 15:04" (or "2006-01-02T15:04", either
	// with ":05" seconds) in the person's zone; a day word and a time in
	// it ("tomorrow 09:00", "monday 10:00", "17:30", "9am": words.go);
	// or RFC 3339 with an offset ("2006-01-02T15:04:05+02:00", "…Z"),
	// whose offset wins.
	At string
	// In is a delay from now: a Go duration ("90m", "2h30m") or days and
	// weeks ("1d", "1d12h", "2w").
	In string
	// Cron is a standard 5-field cron expression ("0 9 * * 1-5") or a
	// descriptor ("@daily"), evaluated in the person's zone.
	Cron string
}

// Local layouts At accepts, tried in order.
var localLayouts = []string{
	"2006-01-02 15:04",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05",
}

// ParseWhen reads w in loc at now: the first due time (UTC) and, for a
// recurrence, its normalized spec ("" for a one-off). Errors wrap
// ErrInvalid, ErrPast or ErrNever, with words a person can act on.
//
// A local At that does not exist, because the clocks jump forward over it
// (02:30 on the night summer time starts in Europe/Berlin), resolves as
// time.Date resolves it: with the offset in force before the jump, which
// reads as an hour later (03:30 CEST). A local At that occurs twice, as the
// clocks fall back, is the second of the two, as time.Date has it (02:30
// CET, after 02:30 CEST); RFC 3339 with an offset picks either exactly.
//
// ParseWhen does not know the deployment's minimum interval: a caller
// that has one checks a recurrence with CheckInterval.
func ParseWhen(w When, loc *time.Location, now time.Time) (at time.Time, spec string, err error) {
	if loc == nil {
		return time.Time{}, "", fmt.Errorf("%w: no time zone", ErrInvalid)
	}
	set := 0
	for _, s := range []string{w.At, w.In, w.Cron} {
		if strings.TrimSpace(s) != "" {
			set++
		}
	}
	if set != 1 {
		return time.Time{}, "", fmt.Errorf("%w: give exactly one of a time (at), a delay (in) or a cron expression, not %d", ErrInvalid, set)
	}
	switch {
	case strings.TrimSpace(w.At) != "":
		at, err = parseAt(w.At, loc, now)
		if err == nil && !at.After(now) {
			err = fmt.Errorf("%w: %s is before now (%s)", ErrPast,
				at.In(loc).Format("2006-01-02 15:04 MST"), now.In(loc).Format("2006-01-02 15:04 MST"))
		}
	case strings.TrimSpace(w.In) != "":
		var d time.Duration
		if d, err = parseIn(w.In); err == nil {
			at = now.Add(d)
		}
	default:
		var s schedule
		if s, err = parseCron(w.Cron, loc); err == nil {
			spec = s.spec
			if at, err = s.next(now); err != nil {
				spec = ""
			}
		}
	}
	if err != nil {
		return time.Time{}, "", err
	}
	return at.UTC(), spec, nil
}

// parseAt reads an absolute time: RFC 3339 with its own offset, else a
// local layout in loc.
func parseAt(s string, loc *time.Location, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, ok, err := parseDayWords(s, loc, now); ok {
		return t, err
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range localLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf(`%w: time %q: use "2006-01-02 15:04" or "tomorrow 09:00" in your time zone, or RFC 3339 with an offset ("2006-01-02T15:04:05+02:00")`, ErrInvalid, s)
}

// Units In accepts beyond time.ParseDuration's.
var longUnits = map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour}

// parseIn reads a positive delay: Go duration segments and whole days
// ("d") and weeks ("w"), in any order, spaces allowed between them. A day
// is 24 hours here, not a calendar day: "1d" across a daylight-saving
// change lands an hour off the same wall-clock time.
func parseIn(s string) (time.Duration, error) {
	orig := s
	bad := func(why string) (time.Duration, error) {
		return 0, fmt.Errorf(`%w: delay %q: %s (examples: "90m", "2h30m", "1d12h", "2w")`, ErrInvalid, orig, why)
	}
	s = strings.Join(strings.Fields(s), "")
	if s == "" {
		return bad("empty")
	}
	if s[0] == '-' || s[0] == '+' {
		return bad("must be a positive delay without a sign")
	}
	var total time.Duration
	for s != "" {
		// One segment: a number, then its unit.
		i := 0
		for i < len(s) && (s[i] == '.' || s[i] >= '0' && s[i] <= '9') {
			i++
		}
		j := i
		for j < len(s) && !(s[j] == '.' || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		num, unit := s[:i], s[i:j]
		if num == "" {
			return bad("a unit without a number")
		}
		if unit == "" {
			return bad("a number without a unit")
		}
		var d time.Duration
		if u, ok := longUnits[unit]; ok {
			n, err := strconv.ParseInt(num, 10, 64)
			if err != nil {
				return bad("days and weeks must be whole numbers")
			}
			if n > math.MaxInt64/int64(u) {
				return bad("too long")
			}
			d = time.Duration(n) * u
		} else {
			var err error
			if d, err = time.ParseDuration(num + unit); err != nil {
				return bad(fmt.Sprintf("unknown unit %q or a number too large", unit))
			}
		}
		if total > math.MaxInt64-d {
			return bad("too long")
		}
		total += d
		s = s[j:]
	}
	if total <= 0 {
		return bad("must be more than zero")
	}
	return total, nil
}
