package adapterkit

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// TestSelfFetchedOnce: however many callers ask at once, the platform is
// asked once, and every caller gets its answer.
func TestSelfFetchedOnce(t *testing.T) {
	for _, callers := range []int{1, 2, 16} {
		t.Run("", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var s Self[string]
				var calls atomic.Int32
				release := make(chan struct{})
				fetch := func(context.Context) (string, error) {
					calls.Add(1)
					<-release
					return "U1", nil
				}
				var wg sync.WaitGroup
				for range callers {
					wg.Go(func() {
						if v, err := s.Fetch(t.Context(), fetch); v != "U1" || err != nil {
							t.Errorf("Fetch = %q, %v", v, err)
						}
					})
				}
				synctest.Wait() // every caller is in: one fetching, the rest waiting
				close(release)
				wg.Wait()
				if v, err := s.Fetch(t.Context(), fetch); v != "U1" || err != nil {
					t.Errorf("Fetch after = %q, %v", v, err)
				}
				if n := calls.Load(); n != 1 {
					t.Errorf("the platform was asked %d times by %d callers, want once", n, callers)
				}
				if s.Get() != "U1" {
					t.Errorf("Get = %q", s.Get())
				}
			})
		})
	}
}

// TestSelfFetch: what is remembered and what is asked again.
func TestSelfFetch(t *testing.T) {
	boom := errors.New("unreachable")
	tests := []struct {
		name      string
		set       string // Set before fetching, if not ""
		results   []error
		wantVals  []string
		wantCalls int32
	}{
		{name: "success is remembered", results: []error{nil, nil}, wantVals: []string{"v1", "v1"}, wantCalls: 1},
		{name: "failure is asked again", results: []error{boom, nil, nil}, wantVals: []string{"", "v2", "v2"}, wantCalls: 2},
		{name: "set needs no fetch", set: "given", results: []error{nil}, wantVals: []string{"given"}, wantCalls: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Self[string]
			if tt.set != "" {
				s.Set(tt.set)
			}
			var calls atomic.Int32
			for i, want := range tt.wantVals {
				v, err := s.Fetch(t.Context(), func(context.Context) (string, error) {
					n := calls.Add(1)
					if tt.results[i] != nil {
						return "", tt.results[i]
					}
					return "v" + string(rune('0'+n)), nil
				})
				if v != want || !errors.Is(err, tt.results[i]) {
					t.Errorf("call %d: Fetch = %q, %v; want %q, %v", i, v, err, want, tt.results[i])
				}
				if s.Get() != want && err == nil {
					t.Errorf("call %d: Get = %q, want %q", i, s.Get(), want)
				}
			}
			if n := calls.Load(); n != tt.wantCalls {
				t.Errorf("fetched %d times, want %d", n, tt.wantCalls)
			}
		})
	}
}

// TestSelfWaiterGivesUp: a caller waiting on another's fetch returns when
// its own context ends, and a fetch that failed lets a waiter try.
func TestSelfWaiterGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s Self[int]
		release := make(chan struct{})
		failing := func(context.Context) (int, error) { <-release; return 0, errors.New("down") }
		go s.Fetch(t.Context(), failing)
		synctest.Wait()

		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := s.Fetch(ctx, failing); !errors.Is(err, context.Canceled) {
			t.Errorf("waiter with an ended context: %v, want context.Canceled", err)
		}

		got := make(chan int, 1)
		go func() {
			v, _ := s.Fetch(t.Context(), func(context.Context) (int, error) { return 7, nil })
			got <- v
		}()
		synctest.Wait()
		close(release) // the first fetch fails: the waiter asks itself
		if v := <-got; v != 7 {
			t.Errorf("the waiter got %d after the first fetch failed, want its own 7", v)
		}
	})
}

// TestSelfPanickingFetch: a fetch that panics is not remembered as a
// success, and does not leave later callers waiting.
func TestSelfPanickingFetch(t *testing.T) {
	var s Self[int]
	func() {
		defer func() { _ = recover() }()
		s.Fetch(t.Context(), func(context.Context) (int, error) { panic("bug") })
	}()
	if v, err := s.Fetch(t.Context(), func(context.Context) (int, error) { return 3, nil }); v != 3 || err != nil {
		t.Errorf("after a panicking fetch: %d, %v; want a fresh fetch", v, err)
	}
}
