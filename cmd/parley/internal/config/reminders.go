package config

import (
	"fmt"
	"time"
)

// Reminders configures reminders and scheduled runs (docs/reminders.md).
type Reminders struct {
	// Enabled switches the remind and schedule tools, /remind,
	// /schedules, /tz and the delivery loop.
	Enabled bool `mapstructure:"enabled"`
	// DefaultZone is the time zone of people who set none with /tz and
	// whose platform profile tells none (IANA name).
	DefaultZone string `mapstructure:"default_zone"`
	// GraceMinutes: an occurrence missed by less (Parley was not running)
	// is delivered late, with a note; older ones are reported as missed.
	GraceMinutes int `mapstructure:"grace_minutes"`
	// MinIntervalMinutes is the shortest gap a recurrence may have.
	MinIntervalMinutes int `mapstructure:"min_interval_minutes"`
	// MaxPerPerson caps one person's active reminders and schedules in
	// one place.
	MaxPerPerson int `mapstructure:"max_per_person"`
}

func defaultReminders() Reminders {
	return Reminders{Enabled: true, DefaultZone: "UTC", GraceMinutes: 60, MinIntervalMinutes: 5, MaxPerPerson: 50}
}

// validate checks the reminders.* keys.
func (r *Reminders) validate() []string {
	p := outOfRange(
		bound[int]{"reminders.grace_minutes", r.GraceMinutes, 1, 7 * 24 * 60},
		bound[int]{"reminders.min_interval_minutes", r.MinIntervalMinutes, 1, 7 * 24 * 60},
		bound[int]{"reminders.max_per_person", r.MaxPerPerson, 1, 10000},
	)
	if _, err := time.LoadLocation(r.DefaultZone); err != nil || r.DefaultZone == "" || r.DefaultZone == "Local" {
		p = append(p, fmt.Sprintf("reminders.default_zone: %q is not a time zone; want an IANA name such as UTC or Europe/Berlin", Quiet(r.DefaultZone)))
	}
	return p
}
