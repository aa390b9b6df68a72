package slack

import (
	"context"
	"sync"
)

// maxCachedUsers bounds the name cache; past it the cache starts over,
// which costs one users.info per active user and keeps memory flat in a
// huge workspace.
const maxCachedUsers = 10000

// userNames caches display names, so each person costs one users.info
// call per process rather than one per message. The lookup is injected
// so the cache is testable without Slack.
type userNames struct {
	lookup func(ctx context.Context, id string) (string, error)

	mu    sync.Mutex
	names map[string]string
}

func newUserNames(lookup func(ctx context.Context, id string) (string, error)) *userNames {
	return &userNames{lookup: lookup, names: map[string]string{}}
}

// name returns id's display name, or "" when it is unknown. A failed
// lookup is not cached: the next message tries again, and a name is only
// a courtesy in the prompt, so the message goes on without it.
func (c *userNames) name(ctx context.Context, id string) (string, error) {
	if id == "" || c.lookup == nil {
		return "", nil
	}
	c.mu.Lock()
	n, ok := c.names[id]
	c.mu.Unlock()
	if ok {
		return n, nil
	}
	n, err := c.lookup(ctx, id)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.names) >= maxCachedUsers {
		clear(c.names)
	}
	c.names[id] = n
	return n, nil
}
