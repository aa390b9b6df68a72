package slack

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

// maxCachedUsers bounds the profile cache; past it the profiles cached
// longest ago go, which costs one users.info per returning person and
// keeps memory flat in a huge workspace.
const maxCachedUsers = 10000

// profile is what Parley uses of a person's users.info: the name shown
// in prompts and the time zone of reminders.
type profile struct {
	name string // display name, else real name, else account name
	zone string // IANA time zone ("Europe/Berlin"), "" when Slack has none
}

// userProfiles caches profiles, so each person costs one users.info call
// per process rather than one per message, and the name and the time zone
// come from the same call. The lookup is injected so the cache is
// testable without Slack. A profile is kept until it falls out of the
// cache or the process ends: a person who changes their name or zone is
// seen with the old one until then.
type userProfiles struct {
	lookup func(ctx context.Context, id string) (profile, error)
	cache  *adapterkit.Cache[string, profile]
}

func newUserProfiles(lookup func(ctx context.Context, id string) (profile, error)) *userProfiles {
	return &userProfiles{lookup: lookup, cache: adapterkit.NewCache[string, profile](maxCachedUsers)}
}

// get returns id's profile, the zero profile when id is unknown. A failed
// lookup is not cached: the next message tries again, and a name is only
// a courtesy in the prompt, so the message goes on without it.
func (c *userProfiles) get(ctx context.Context, id string) (profile, error) {
	if id == "" || c.lookup == nil {
		return profile{}, nil
	}
	if p, ok := c.cache.Get(id); ok {
		return p, nil
	}
	p, err := c.lookup(ctx, id)
	if err != nil {
		return profile{}, err
	}
	c.cache.Put(id, p)
	return p, nil
}

// usersInfoEvery and usersInfoBurst pace users.info: Tier 4 allows ~100
// calls a minute for the workspace. A lookup the budget cannot take at
// once goes without: the name is a courtesy, and waiting for it would
// hold up the events received behind it.
const (
	usersInfoEvery = 600 * time.Millisecond
	usersInfoBurst = 20
)

// newUsersPace is the users.info budget, one for the bot (chat.PaceGlobal),
// so replicas split it (SetShare), on the adapter's clock.
func newUsersPace(now func() time.Time, sleep func(context.Context, time.Duration) error) *outbound.Pacer {
	return outbound.NewPacer(outbound.PacerConfig{Platform: platform, Now: now, Sleep: sleep, Capabilities: chat.Capabilities{
		EditEvery: usersInfoEvery, EditBurst: usersInfoBurst, EditScope: chat.PaceGlobal,
	}})
}

// errUsersInfoBudget is a lookup skipped for users.info's budget.
var errUsersInfoBudget = errors.New("slack: users.info: budget spent for now; going without the name")

var _ chat.ShareTaker = (*Adapter)(nil)

// SetShare gives this replica its share of users.info's budget when n
// replicas send for the bot (chat.ShareTaker).
func (a *Adapter) SetShare(n int) { a.usersPace.SetShare(n) }

// lookupProfile is users.info, for the profile cache, within its budget.
func (a *Adapter) lookupProfile(ctx context.Context, id string) (profile, error) {
	key := a.usersPace.Key(chat.Thread{Platform: platform})
	if !a.usersPace.Free(key) {
		return profile{}, errUsersInfoBudget
	}
	if err := a.usersPace.Wait(ctx, key); err != nil {
		return profile{}, fmt.Errorf("slack: users.info: %w", err)
	}
	u, err := a.api.GetUserInfoContext(ctx, id)
	if err != nil {
		return profile{}, wrap("users.info", err)
	}
	p := profile{zone: u.TZ}
	for _, n := range []string{u.Profile.DisplayName, u.RealName, u.Name} {
		if n != "" {
			p.name = n
			break
		}
	}
	return p, nil
}

var _ chat.ZoneTeller = (*Adapter)(nil)

// UserZone is the time zone of u's Slack profile ("" when it has none),
// from the users.info that also gives their name, cached.
func (a *Adapter) UserZone(ctx context.Context, u chat.User) (string, error) {
	if u.Platform != "" && u.Platform != platform {
		return "", fmt.Errorf("slack: time zone of %s, a person of another platform", u.Key())
	}
	if u.ID == "" {
		return "", nil
	}
	p, err := a.users.get(ctx, u.ID)
	return p.zone, err
}
