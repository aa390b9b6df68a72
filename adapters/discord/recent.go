package discord

import (
	"slices"
	"sync"
)

// recent is a bounded map: past its capacity the oldest entry goes. The
// adapter remembers messages, channels and threads only as long as a
// conversation is likely to need them; what falls out is looked up again
// (channels) or degrades gracefully (a thread named "Parley").
type recent[K comparable, V any] struct {
	mu    sync.Mutex
	cap   int
	items map[K]V
	order []K // keys in insertion order, each once
}

func newRecent[K comparable, V any](capacity int) *recent[K, V] {
	return &recent[K, V]{cap: max(capacity, 1), items: make(map[K]V)}
}

func (r *recent[K, V]) get(k K) (V, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.items[k]
	return v, ok
}

func (r *recent[K, V]) put(k K, v V) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.putLocked(k, v)
}

// once stores k and reports true the first time k is seen, for warnings
// that must not flood the log.
func (r *recent[K, V]) once(k K, v V) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, seen := r.items[k]; seen {
		return false
	}
	r.putLocked(k, v)
	return true
}

func (r *recent[K, V]) putLocked(k K, v V) {
	if _, ok := r.items[k]; !ok {
		r.order = append(r.order, k)
	}
	r.items[k] = v
	for len(r.order) > r.cap {
		delete(r.items, r.order[0])
		r.order = r.order[1:]
	}
	// Re-slicing never frees the head; copy once it dominates.
	if cap(r.order) > 4*r.cap {
		r.order = append([]K(nil), r.order...)
	}
}

// entry is one key and value of a recent.
type entry[K comparable, V any] struct {
	key K
	val V
}

// update stores f(the current value) under k as the newest entry, so a
// key in use outlives keys that merely arrived later. f runs under the
// lock: concurrent updates of k see each other.
func (r *recent[K, V]) update(k K, f func(old V, ok bool) V) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, ok := r.items[k]
	if ok {
		if i := slices.Index(r.order, k); i >= 0 {
			r.order = slices.Delete(r.order, i, i+1)
		}
		delete(r.items, k)
	}
	r.putLocked(k, f(old, ok))
}

// newest returns up to n entries, the newest first.
func (r *recent[K, V]) newest(n int) []entry[K, V] {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]entry[K, V], 0, min(n, len(r.order)))
	for i := len(r.order) - 1; i >= 0 && len(out) < n; i-- {
		k := r.order[i]
		out = append(out, entry[K, V]{key: k, val: r.items[k]})
	}
	return out
}
