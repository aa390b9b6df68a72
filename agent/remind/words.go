package remind

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/parleybot/parley/internal/lazyre"
)

// People say "tomorrow at 9" more often than "2026-11-27 09:00", and a
// model that turns one into the other near midnight, in a zone it cannot
// see, gets the day wrong. So At also takes a day word and a wall time, read
// in the person's zone on their calendar: "today 17:30", "tomorrow 09:00",
// "monday 10:00" (the next Monday; today when it is Monday and the time is
// still ahead), or a bare "17:30" (today if still ahead, else tomorrow).

var dayWords = lazyre.MustCompile(`^(?i)(?:(today|tomorrow|mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?\s+)?(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$`)

var weekdays = map[string]time.Weekday{"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday,
	"thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday}

// parseDayWords reads the day-word forms in loc at now; ok is false when s
// is not one of them.
func parseDayWords(s string, loc *time.Location, now time.Time) (t time.Time, ok bool, err error) {
	m := dayWords().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil || (m[3] == "" && m[4] == "") {
		return time.Time{}, false, nil // "9" alone is not a time; "9am" is
	}
	day, hour := strings.ToLower(m[1]), atoi(m[2])
	minute := atoi(m[3])
	switch strings.ToLower(m[4]) {
	case "am", "pm":
		if hour < 1 || hour > 12 {
			return time.Time{}, true, fmt.Errorf("%w: time %q: the hour of a 12-hour time is 1 to 12", ErrInvalid, s)
		}
		hour %= 12
		if strings.EqualFold(m[4], "pm") {
			hour += 12
		}
	}
	if hour > 23 || minute > 59 {
		return time.Time{}, true, fmt.Errorf("%w: time %q: no such time of day", ErrInvalid, s)
	}
	local := now.In(loc)
	at := func(offset int) time.Time {
		return time.Date(local.Year(), local.Month(), local.Day()+offset, hour, minute, 0, 0, loc)
	}
	switch day {
	case "today":
		return at(0), true, nil // a past time is refused as ErrPast by the caller
	case "tomorrow":
		return at(1), true, nil
	case "":
		if t := at(0); t.After(now) {
			return t, true, nil
		}
		return at(1), true, nil
	}
	wd := weekdays[day[:3]]
	ahead := (int(wd) - int(local.Weekday()) + 7) % 7
	if t := at(ahead); t.After(now) {
		return t, true, nil
	}
	return at(ahead + 7), true, nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s) // the pattern admits digits only
	return n
}
