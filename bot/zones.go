package bot

import (
	"context"
	"fmt"
	"github.com/parleybot/parley/chat"
	"strings"
	"time"
)

// Each person's time zone, for reminders and schedules: what they set
// with /tz, else what their platform profile says (Slack's), else the
// operator's default. A reminder keeps the zone it was set in, so a later
// /tz does not move it.

// Zones tell each person's time zone. It implements remind.Zones.
type Zones struct {
	KV chat.KV
	// Adapters are asked for a profile's zone when the person set none.
	Adapters []chat.Adapter
	// Default is the zone of everyone else (default UTC).
	Default *time.Location
}

// zoneKey is the KV key of u's zone.
func zoneKey(userKey string) string { return "tz:" + userKey }

// Zone is the zone of the person keyed userKey ("slack:U1").
func (z Zones) Zone(ctx context.Context, userKey string) (*time.Location, error) {
	loc, _, err := z.zone(ctx, userKey)
	return loc, err
}

// zone is Zone and where it came from: "set", "profile" or "default".
func (z Zones) zone(ctx context.Context, userKey string) (*time.Location, string, error) {
	if name, ok, err := z.KV.Get(ctx, zoneKey(userKey)); err != nil {
		return nil, "", fmt.Errorf("read time zone: %w", err)
	} else if ok {
		if loc, err := LoadZone(name); err == nil {
			return loc, "set", nil
		}
	}
	platform, id, _ := strings.Cut(userKey, ":")
	for _, a := range z.Adapters {
		t, ok := a.(chat.ZoneTeller)
		if !ok || a.Platform() != platform {
			continue
		}
		// A profile that cannot be read costs only its zone.
		if name, err := t.UserZone(ctx, chat.User{Platform: platform, ID: id}); err == nil && name != "" {
			if loc, err := LoadZone(name); err == nil {
				return loc, "profile", nil
			}
		}
	}
	if z.Default != nil {
		return z.Default, "default", nil
	}
	return time.UTC, "default", nil
}

// SetZone keeps u's zone, an IANA name.
func (z Zones) SetZone(ctx context.Context, userKey, name string) (*time.Location, error) {
	loc, err := LoadZone(name)
	if err != nil {
		return nil, err
	}
	if err := z.KV.Set(ctx, zoneKey(userKey), loc.String()); err != nil {
		return nil, fmt.Errorf("keep time zone: %w", err)
	}
	return loc, nil
}

// LoadZone loads an IANA zone by name, refusing "Local" (the server's,
// not the person's) and the empty name.
func LoadZone(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.EqualFold(name, "Local") {
		return nil, fmt.Errorf("time zone %q: want an IANA name such as Europe/Berlin or America/New_York", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("time zone %q is unknown: want an IANA name such as Europe/Berlin or America/New_York", name)
	}
	return loc, nil
}
