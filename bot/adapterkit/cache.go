package adapterkit

import "sync"

// Cache is a bounded map, safe for concurrent use: past its capacity the
// oldest entry goes. Adapters remember messages, channels, names and
// threads only as long as a conversation is likely to need them; what
// falls out is looked up again or degrades gracefully, and memory stays
// flat however busy the bot is.
//
// An entry's age counts from when it was added, or last replaced by
// Update; Get and Put of a present key leave it where it is, so that a
// key merely read often cannot crowd out newer ones.
type Cache[K comparable, V any] struct {
	mu       sync.Mutex
	capacity int
	items    map[K]*node[K, V]
	// A list through the nodes, newest at newest: every change is O(1),
	// and no slice of keys has to be shifted or reclaimed.
	newest, oldest *node[K, V]
}

type node[K comparable, V any] struct {
	key          K
	val          V
	newer, older *node[K, V]
}

// Entry is one key and value of a Cache.
type Entry[K comparable, V any] struct {
	Key K
	Val V
}

// NewCache returns an empty cache holding at most capacity entries (at
// least one).
func NewCache[K comparable, V any](capacity int) *Cache[K, V] {
	return &Cache[K, V]{capacity: max(capacity, 1), items: make(map[K]*node[K, V])}
}

// Get returns the value under k and whether there is one.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.items[k]; ok {
		return n.val, true
	}
	var zero V
	return zero, false
}

// Put stores v under k: a new key as the newest entry, a present one in
// its place.
func (c *Cache[K, V]) Put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.items[k]; ok {
		n.val = v
		return
	}
	c.pushLocked(k, v)
}

// Add stores v under k unless k is present, and reports whether it did:
// true the first time a key is seen, for warnings that must not flood
// the log.
func (c *Cache[K, V]) Add(k K, v V) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[k]; ok {
		return false
	}
	c.pushLocked(k, v)
	return true
}

// Update stores f(the present value, whether there is one) under k as the
// newest entry, so a key in use outlives keys that merely arrived later.
// f runs under the cache's lock: concurrent updates of k see each other,
// and f must not use the cache.
func (c *Cache[K, V]) Update(k K, f func(old V, ok bool) V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.items[k]
	if !ok {
		var zero V
		c.pushLocked(k, f(zero, false))
		return
	}
	n.val = f(n.val, true)
	c.unlinkLocked(n)
	c.linkNewestLocked(n)
}

// Take removes k and returns its value, if it was there.
func (c *Cache[K, V]) Take(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.items[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.unlinkLocked(n)
	delete(c.items, k)
	return n.val, true
}

// Len is the number of entries.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Newest returns up to n entries, the newest first.
func (c *Cache[K, V]) Newest(n int) []Entry[K, V] {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Entry[K, V], 0, max(min(n, len(c.items)), 0))
	for e := c.newest; e != nil && len(out) < n; e = e.older {
		out = append(out, Entry[K, V]{Key: e.key, Val: e.val})
	}
	return out
}

// pushLocked adds a new key as the newest entry, evicting the oldest
// past the capacity.
func (c *Cache[K, V]) pushLocked(k K, v V) {
	n := &node[K, V]{key: k, val: v}
	c.items[k] = n
	c.linkNewestLocked(n)
	for len(c.items) > c.capacity {
		old := c.oldest
		c.unlinkLocked(old)
		delete(c.items, old.key)
	}
}

func (c *Cache[K, V]) linkNewestLocked(n *node[K, V]) {
	n.older, n.newer = c.newest, nil
	if c.newest != nil {
		c.newest.newer = n
	}
	c.newest = n
	if c.oldest == nil {
		c.oldest = n
	}
}

func (c *Cache[K, V]) unlinkLocked(n *node[K, V]) {
	if n.newer != nil {
		n.newer.older = n.older
	} else {
		c.newest = n.older
	}
	if n.older != nil {
		n.older.newer = n.newer
	} else {
		c.oldest = n.newer
	}
	n.newer, n.older = nil, nil
}
