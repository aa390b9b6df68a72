package adapterkit

import (
	"context"
	"sync"
)

// Self is who the bot is on its platform (its user id, its name), asked
// of the platform once and then read by every handler without a call:
// normalizing a message needs it to tell the bot's own messages and
// mentions. The zero Self knows nothing yet; a Self must not be copied
// after first use.
type Self[T any] struct {
	mu    sync.Mutex
	val   T
	known bool
	// fetching is closed when the fetch under way ends; nil when none is.
	fetching chan struct{}
}

// Fetch returns who the bot is, calling fetch only when no earlier call
// succeeded. Callers arriving while a fetch is under way wait for it
// rather than ask the platform again; a failed fetch is not remembered,
// so the next caller (or a waiter) asks again. A waiter whose ctx ends
// returns ctx's error.
func (s *Self[T]) Fetch(ctx context.Context, fetch func(context.Context) (T, error)) (T, error) {
	for {
		s.mu.Lock()
		if s.known {
			v := s.val
			s.mu.Unlock()
			return v, nil
		}
		wait := s.fetching
		if wait == nil {
			done := make(chan struct{})
			s.fetching = done
			s.mu.Unlock()
			return s.fetch(ctx, fetch, done)
		}
		s.mu.Unlock()
		select {
		case <-wait: // known now, or failed: look again
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
	}
}

func (s *Self[T]) fetch(ctx context.Context, fetch func(context.Context) (T, error), done chan struct{}) (T, error) {
	var (
		v  T
		ok bool // set only once fetch returned without error: not if it panicked
	)
	// Deferred, so that a panicking fetch does not leave waiters waiting.
	defer func() {
		s.mu.Lock()
		if ok && !s.known {
			s.val, s.known = v, true
		}
		s.fetching = nil
		s.mu.Unlock()
		close(done)
	}()
	v, err := fetch(ctx)
	ok = err == nil
	return v, err
}

// Get returns who the bot is, or the zero T before a fetch succeeded.
func (s *Self[T]) Get() T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.val
}

// Set records v as who the bot is without asking the platform: for an
// identity learned another way, as a test does.
func (s *Self[T]) Set(v T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.val, s.known = v, true
}
