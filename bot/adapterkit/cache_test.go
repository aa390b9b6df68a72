package adapterkit

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

// TestCacheBound: whatever the sequence of calls, the cache holds at most
// its capacity, and the oldest entries go first; Put and Get of a present
// key keep its age, Update makes it the newest, Add stores only a new
// key, Take removes.
func TestCacheBound(t *testing.T) {
	type op struct {
		do   string // put, add, update, take, get
		k    string
		v    int
		want bool // what add, take or get reports
	}
	put := func(k string, v int) op { return op{do: "put", k: k, v: v} }
	tests := []struct {
		name     string
		capacity int
		ops      []op
		newest   []string // keys, newest first, after the ops
		vals     []int    // their values
	}{
		{"under capacity", 3, []op{put("a", 1), put("b", 2)}, []string{"b", "a"}, []int{2, 1}},
		{"the oldest goes", 3, []op{put("a", 1), put("b", 2), put("c", 3), put("d", 4)},
			[]string{"d", "c", "b"}, []int{4, 3, 2}},
		{"put of a present key keeps its age", 3, []op{put("a", 1), put("b", 2), put("c", 3), put("a", 10), put("d", 4)},
			[]string{"d", "c", "b"}, []int{4, 3, 2}},
		{"update makes a key the newest", 3, []op{put("a", 1), put("b", 2), put("c", 3), {do: "update", k: "a", v: 10}, put("d", 4)},
			[]string{"d", "a", "c"}, []int{4, 11, 3}},
		{"update of a new key adds it", 2, []op{put("a", 1), {do: "update", k: "b", v: 5}, put("c", 3)},
			[]string{"c", "b"}, []int{3, 5}},
		{"add stores once", 3, []op{{do: "add", k: "a", v: 1, want: true}, {do: "add", k: "a", v: 2, want: false}},
			[]string{"a"}, []int{1}},
		{"take removes", 3, []op{put("a", 1), put("b", 2), {do: "take", k: "a", want: true}, {do: "take", k: "a", want: false}, put("c", 3)},
			[]string{"c", "b"}, []int{3, 2}},
		{"get does not refresh", 2, []op{put("a", 1), put("b", 2), {do: "get", k: "a", want: true}, put("c", 3), {do: "get", k: "a", want: false}},
			[]string{"c", "b"}, []int{3, 2}},
		{"capacity below one holds one", 0, []op{put("a", 1), put("b", 2)}, []string{"b"}, []int{2}},
		{"capacity one", 1, []op{put("a", 1), {do: "update", k: "a", v: 1}, put("b", 2), {do: "take", k: "b", want: true}},
			nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCache[string, int](tt.capacity)
			for i, o := range tt.ops {
				var got bool
				switch o.do {
				case "put":
					c.Put(o.k, o.v)
					continue
				case "update":
					c.Update(o.k, func(old int, ok bool) int { return old + o.v })
					continue
				case "add":
					got = c.Add(o.k, o.v)
				case "take":
					_, got = c.Take(o.k)
				case "get":
					_, got = c.Get(o.k)
				}
				if got != o.want {
					t.Errorf("op %d (%s %s) = %v, want %v", i, o.do, o.k, got, o.want)
				}
			}
			var keys []string
			var vals []int
			for _, e := range c.Newest(100) {
				keys, vals = append(keys, e.Key), append(vals, e.Val)
				if v, ok := c.Get(e.Key); !ok || v != e.Val {
					t.Errorf("Get(%s) = %d, %v; Newest says %d", e.Key, v, ok, e.Val)
				}
			}
			if !slices.Equal(keys, tt.newest) || !slices.Equal(vals, tt.vals) {
				t.Errorf("newest first: %v = %v, want %v = %v", keys, vals, tt.newest, tt.vals)
			}
			if c.Len() != len(tt.newest) {
				t.Errorf("Len = %d, want %d", c.Len(), len(tt.newest))
			}
		})
	}
}

func TestCacheNewestLimit(t *testing.T) {
	c := NewCache[int, int](10)
	for i := range 5 {
		c.Put(i, i)
	}
	for _, tt := range []struct{ n, want int }{{0, 0}, {-1, 0}, {2, 2}, {5, 5}, {9, 5}} {
		if got := c.Newest(tt.n); len(got) != tt.want || (tt.want > 0 && got[0].Key != 4) {
			t.Errorf("Newest(%d) = %v, want %d entries from 4", tt.n, got, tt.want)
		}
	}
}

// TestCacheConcurrentBound: many writers never push it past its capacity.
func TestCacheConcurrentBound(t *testing.T) {
	const capacity = 64
	c := NewCache[string, int](capacity)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 500 {
				k := fmt.Sprint(w, "/", i%100)
				switch i % 4 {
				case 0:
					c.Put(k, i)
				case 1:
					c.Update(k, func(old int, _ bool) int { return old + 1 })
				case 2:
					c.Add(k, i)
				case 3:
					c.Take(k)
				}
				if n := c.Len(); n > capacity {
					t.Errorf("Len = %d past the capacity %d", n, capacity)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := len(c.Newest(1000)); n != c.Len() {
		t.Errorf("the list holds %d entries, the map %d", n, c.Len())
	}
}
