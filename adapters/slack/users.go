package slack

import (
	"context"

	"github.com/parleybot/parley/bot/adapterkit"
)

// maxCachedUsers bounds the name cache; past it the names cached longest
// ago go, which costs one users.info per returning person and keeps
// memory flat in a huge workspace.
const maxCachedUsers = 10000

// userNames caches display names, so each person costs one users.info
// call per process rather than one per message. The lookup is injected
// so the cache is testable without Slack.
type userNames struct {
	lookup func(ctx context.Context, id string) (string, error)
	names  *adapterkit.Cache[string, string]
}

func newUserNames(lookup func(ctx context.Context, id string) (string, error)) *userNames {
	return &userNames{lookup: lookup, names: adapterkit.NewCache[string, string](maxCachedUsers)}
}

// name returns id's display name, or "" when it is unknown. A failed
// lookup is not cached: the next message tries again, and a name is only
// a courtesy in the prompt, so the message goes on without it.
func (c *userNames) name(ctx context.Context, id string) (string, error) {
	if id == "" || c.lookup == nil {
		return "", nil
	}
	if n, ok := c.names.Get(id); ok {
		return n, nil
	}
	n, err := c.lookup(ctx, id)
	if err != nil {
		return "", err
	}
	c.names.Put(id, n)
	return n, nil
}
