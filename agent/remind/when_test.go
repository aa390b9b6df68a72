package remind

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// berlin is the zone the tests' people live in: its clocks fall back on
// 2026-10-25 (03:00 CEST → 02:00 CET) and jump forward on 2027-03-28.
func berlin(t testing.TB) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func utc(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05", s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestParseWhen(t *testing.T) {
	loc := berlin(t)
	now := utc("2026-10-20 10:00:00") // 12:00 CEST
	tests := []struct {
		name     string
		w        When
		want     time.Time
		wantSpec string
		err      error  // errors.Is; nil: no error
		errHas   string // a phrase the error must say
	}{
		// At, local.
		{name: "local", w: When{At: "2026-10-21 09:00"}, want: utc("2026-10-21 07:00:00")},
		{name: "local T", w: When{At: "2026-10-21T09:00"}, want: utc("2026-10-21 07:00:00")},
		{name: "local seconds", w: When{At: "2026-10-21 09:00:30"}, want: utc("2026-10-21 07:00:30")},
		{name: "local T seconds", w: When{At: "2026-10-21T09:00:30"}, want: utc("2026-10-21 07:00:30")},
		{name: "spaces around", w: When{At: "  2026-10-21 09:00 "}, want: utc("2026-10-21 07:00:00")},
		{name: "set before the change, for after it", w: When{At: "2026-10-26 09:00"}, want: utc("2026-10-26 08:00:00")},
		{name: "in the spring gap: as time.Date, an hour on", w: When{At: "2027-03-28 02:30"}, want: utc("2027-03-28 01:30:00")},
		{name: "twice in the autumn fold: the second", w: When{At: "2026-10-25 02:30"}, want: utc("2026-10-25 01:30:00")},
		// At, RFC 3339: the offset wins over the zone.
		{name: "RFC 3339 Z", w: When{At: "2026-10-21T09:00:00Z"}, want: utc("2026-10-21 09:00:00")},
		{name: "RFC 3339 offset", w: When{At: "2026-10-21T09:00:00-05:00"}, want: utc("2026-10-21 14:00:00")},
		{name: "RFC 3339 fraction", w: When{At: "2026-10-21T09:00:00.5+02:00"}, want: utc("2026-10-21 07:00:00").Add(500 * time.Millisecond)},
		{name: "RFC 3339 first of the fold", w: When{At: "2026-10-25T02:30:00+02:00"}, want: utc("2026-10-25 00:30:00")},
		// At, refused.
		{name: "past", w: When{At: "2026-10-19 09:00"}, err: ErrPast, errHas: "2026-10-19 09:00 CEST"},
		{name: "now is past", w: When{At: "2026-10-20 12:00"}, err: ErrPast},
		{name: "past by offset", w: When{At: "2026-10-20T11:00:00+02:00"}, err: ErrPast},
		// At, day words on the person's calendar (now: Tue 20 Oct, 12:00 CEST).
		{name: "tomorrow 9am", w: When{At: "tomorrow 9am"}, want: utc("2026-10-21 07:00:00")},
		{name: "tomorrow at 09:00", w: When{At: "Tomorrow at 09:00"}, want: utc("2026-10-21 07:00:00")},
		{name: "today later", w: When{At: "today 17:30"}, want: utc("2026-10-20 15:30:00")},
		{name: "today earlier is past", w: When{At: "today 11:00"}, err: ErrPast},
		{name: "bare time ahead: today", w: When{At: "13:15"}, want: utc("2026-10-20 11:15:00")},
		{name: "bare time gone: tomorrow", w: When{At: "8:00"}, want: utc("2026-10-21 06:00:00")},
		{name: "pm", w: When{At: "5pm"}, want: utc("2026-10-20 15:00:00")},
		{name: "12am is midnight", w: When{At: "tomorrow 12am"}, want: utc("2026-10-20 22:00:00")},
		{name: "next monday, across the change", w: When{At: "monday 10:00"}, want: utc("2026-10-26 09:00:00")},
		{name: "tuesday, today, ahead", w: When{At: "Tue 18:00"}, want: utc("2026-10-20 16:00:00")},
		{name: "tuesday, today, gone: next week", w: When{At: "tuesday 09:00"}, want: utc("2026-10-27 08:00:00")},
		{name: "no such hour", w: When{At: "tomorrow 25:00"}, err: ErrInvalid, errHas: "no such time"},
		{name: "13pm", w: When{At: "13pm"}, err: ErrInvalid, errHas: "1 to 12"},
		{name: "a bare number is not a time", w: When{At: "9"}, err: ErrInvalid, errHas: `"tomorrow 09:00"`},
		{name: "words", w: When{At: "next blue moon"}, err: ErrInvalid, errHas: `"2006-01-02 15:04"`},
		{name: "no month 13", w: When{At: "2026-13-01 09:00"}, err: ErrInvalid},
		{name: "date only", w: When{At: "2026-10-21"}, err: ErrInvalid},
		{name: "RFC 3339 without offset or minutes", w: When{At: "2026-10-21T09"}, err: ErrInvalid},
		// In.
		{name: "minutes", w: When{In: "90m"}, want: now.Add(90 * time.Minute)},
		{name: "hours and minutes", w: When{In: "2h30m"}, want: now.Add(150 * time.Minute)},
		{name: "a day", w: When{In: "1d"}, want: now.Add(24 * time.Hour)},
		{name: "a day and a half", w: When{In: "1d12h"}, want: now.Add(36 * time.Hour)},
		{name: "weeks", w: When{In: "2w"}, want: now.Add(14 * 24 * time.Hour)},
		{name: "spaced", w: When{In: "1w 2d 3h"}, want: now.Add(9*24*time.Hour + 3*time.Hour)},
		{name: "fraction of an hour", w: When{In: "1.5h"}, want: now.Add(90 * time.Minute)},
		{name: "zero", w: When{In: "0s"}, err: ErrInvalid, errHas: "more than zero"},
		{name: "zero days", w: When{In: "0d"}, err: ErrInvalid},
		{name: "negative", w: When{In: "-1h"}, err: ErrInvalid, errHas: "positive"},
		{name: "fraction of a day", w: When{In: "1.5d"}, err: ErrInvalid, errHas: "whole"},
		{name: "no number", w: When{In: "d"}, err: ErrInvalid},
		{name: "no unit", w: When{In: "5"}, err: ErrInvalid, errHas: "without a unit"},
		{name: "unknown unit", w: When{In: "5x"}, err: ErrInvalid, errHas: `"x"`},
		{name: "months are not a unit", w: When{In: "1mo"}, err: ErrInvalid},
		{name: "too long", w: When{In: "99999999999w"}, err: ErrInvalid, errHas: "too long"},
		{name: "too long in sum", w: When{In: "15000w15000w"}, err: ErrInvalid, errHas: "too long"},
		// Cron.
		{name: "daily", w: When{Cron: "0 9 * * *"}, want: utc("2026-10-21 07:00:00"), wantSpec: "0 9 * * *"},
		{name: "normalized", w: When{Cron: "  0   9 * *  1-5 "}, want: utc("2026-10-21 07:00:00"), wantSpec: "0 9 * * 1-5"},
		{name: "later today", w: When{Cron: "30 12 * * *"}, want: utc("2026-10-20 10:30:00"), wantSpec: "30 12 * * *"},
		{name: "descriptor", w: When{Cron: "@daily"}, want: utc("2026-10-20 22:00:00"), wantSpec: "@daily"},
		{name: "names", w: When{Cron: "0 9 * * mon"}, want: utc("2026-10-26 08:00:00"), wantSpec: "0 9 * * mon"},
		{name: "CRON_TZ refused", w: When{Cron: "CRON_TZ=UTC 0 9 * * *"}, err: ErrInvalid, errHas: "zone"},
		{name: "TZ refused", w: When{Cron: "TZ=America/New_York 0 9 * * *"}, err: ErrInvalid, errHas: "zone"},
		{name: "@every refused", w: When{Cron: "@every 1h"}, err: ErrInvalid, errHas: "@every"},
		{name: "four fields", w: When{Cron: "0 9 * *"}, err: ErrInvalid, errHas: "five fields"},
		{name: "six fields", w: When{Cron: "0 0 9 * * *"}, err: ErrInvalid},
		{name: "minute 61", w: When{Cron: "61 * * * *"}, err: ErrInvalid},
		{name: "unknown descriptor", w: When{Cron: "@fortnightly"}, err: ErrInvalid},
		{name: "never", w: When{Cron: "0 0 30 2 *"}, err: ErrNever},
		// Shape.
		{name: "nothing", w: When{}, err: ErrInvalid, errHas: "exactly one"},
		{name: "blank", w: When{At: "  "}, err: ErrInvalid, errHas: "exactly one"},
		{name: "two", w: When{At: "2026-10-21 09:00", In: "1h"}, err: ErrInvalid, errHas: "exactly one"},
		{name: "three", w: When{At: "2026-10-21 09:00", In: "1h", Cron: "@daily"}, err: ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at, spec, err := ParseWhen(tt.w, loc, now)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("ParseWhen(%+v) = %v, %q, %v; want error %v", tt.w, at, spec, err, tt.err)
				}
				if !strings.Contains(err.Error(), tt.errHas) {
					t.Errorf("error %q does not say %q", err, tt.errHas)
				}
				if !at.IsZero() || spec != "" {
					t.Errorf("an error came with %v, %q", at, spec)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseWhen(%+v): %v", tt.w, err)
			}
			if !at.Equal(tt.want) || at.Location() != time.UTC {
				t.Errorf("at = %v, want %v UTC", at, tt.want)
			}
			if spec != tt.wantSpec {
				t.Errorf("spec = %q, want %q", spec, tt.wantSpec)
			}
		})
	}
	if _, _, err := ParseWhen(When{In: "1h"}, nil, now); !errors.Is(err, ErrInvalid) {
		t.Errorf("no zone: %v, want ErrInvalid", err)
	}
}

func TestCheckInterval(t *testing.T) {
	loc := berlin(t)
	from := utc("2026-10-24 12:00:00") // the fall-back night within 20 hours
	spring := utc("2027-03-26 12:00:00")
	tests := []struct {
		name string
		spec string
		from time.Time
		min  time.Duration
		err  error
	}{
		{"every five minutes, min 10", "*/5 * * * *", from, 10 * time.Minute, ErrTooOften},
		{"every five minutes, min 5", "*/5 * * * *", from, 5 * time.Minute, nil},
		{"two minutes at nine", "0,1 9 * * *", from, time.Hour, ErrTooOften},
		{"daily", "0 9 * * *", from, time.Hour, nil},
		{"hourly through the fold", "0 * * * *", from, time.Hour, nil},
		{"daily across the 23-hour day", "0 9 * * *", spring, 24 * time.Hour, nil},
		{"daily across the 25-hour day", "0 9 * * *", from, 24 * time.Hour, nil},
		{"weekdays", "0 9 * * 1-5", from, 24 * time.Hour, nil},
		{"no minimum", "* * * * *", from, 0, nil},
		{"bad spec", "nope", from, time.Hour, ErrInvalid},
		{"never", "0 0 30 2 *", from, time.Hour, ErrNever},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckInterval(tt.spec, loc, tt.from, tt.min)
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("CheckInterval(%q, %v) = %v, want %v", tt.spec, tt.min, err, tt.err)
			}
			if tt.err == ErrTooOften && !strings.Contains(err.Error(), tt.min.String()) {
				t.Errorf("error %q does not name the minimum %v", err, tt.min)
			}
		})
	}
}
