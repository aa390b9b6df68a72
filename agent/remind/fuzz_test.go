package remind

import (
	"errors"
	"testing"
	"time"
)

// FuzzParseWhen: whatever the input, ParseWhen does not panic, answers
// either a time after now in UTC or an error wrapping one of the
// package's sentinels, returns a spec only for a cron expression, and
// that spec reads back to the same first occurrence.
func FuzzParseWhen(f *testing.F) {
	for _, s := range []struct{ kind, s string }{
		{"at", "2026-10-21 09:00"}, {"at", "2026-10-25T02:30"}, {"at", "2026-10-21T09:00:00+02:00"}, {"at", "2027-03-28 02:30:59"},
		{"in", "90m"}, {"in", "1d12h"}, {"in", "2w"}, {"in", "1.5h"}, {"in", "-1h"}, {"in", "99999999999w"}, {"in", "1µs"},
		{"cron", "0 9 * * *"}, {"cron", "@daily"}, {"cron", "*/5 * * * 1-5"}, {"cron", "CRON_TZ=UTC 0 9 * * *"}, {"cron", "0 0 30 2 *"},
	} {
		f.Add(s.kind, s.s)
	}
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		f.Fatal(err)
	}
	now := time.Date(2026, 10, 20, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, kind, s string) {
		var w When
		switch kind {
		case "at":
			w.At = s
		case "in":
			w.In = s
		default:
			w.Cron = s
		}
		at, spec, err := ParseWhen(w, loc, now)
		if err != nil {
			if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrPast) && !errors.Is(err, ErrNever) {
				t.Fatalf("ParseWhen(%+v) = %v: no sentinel", w, err)
			}
			return
		}
		if !at.After(now) || at.Location() != time.UTC {
			t.Fatalf("ParseWhen(%+v) = %v: not after now, or not UTC", w, at)
		}
		if (spec != "") != (w.Cron != "") {
			t.Fatalf("ParseWhen(%+v) spec = %q", w, spec)
		}
		if spec != "" {
			again, spec2, err := ParseWhen(When{Cron: spec}, loc, now)
			if err != nil || !again.Equal(at) || spec2 != spec {
				t.Fatalf("spec %q reads back as %v, %q, %v; first %v", spec, again, spec2, err, at)
			}
			if next, ok := Next(Item{Spec: spec, Zone: loc.String()}, now); !ok || !next.Equal(at) {
				t.Fatalf("Next of %q = %v, %v; ParseWhen said %v", spec, next, ok, at)
			}
		}
	})
}
