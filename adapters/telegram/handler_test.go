package telegram

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/chat"
)

// Test doubles for the adapter's collaborators: State, the sleep between
// retries, and the chat.Handler.

// memState is an in-memory State; failGet/failSet make it fail. It
// remembers when each key was set, on the real clock (fake in a synctest
// bubble), for DeleteStale and KeysWithPrefix.
type memState struct {
	mu      sync.Mutex
	kv      map[string]string
	setAt   map[string]time.Time
	failGet error
	failSet error
	// deletes records DeleteStale's calls: the prefix, and how old is
	// stale.
	deletes []staleDelete
}

type staleDelete struct {
	prefix string
	before time.Time
}

var _ chat.PlatformState = (*memState)(nil)

func newMemState() *memState {
	return &memState{kv: map[string]string{}, setAt: map[string]time.Time{}}
}

func (m *memState) Get(_ context.Context, key string) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failGet != nil {
		return "", false, m.failGet
	}
	v, ok := m.kv[key]
	return v, ok, nil
}

func (m *memState) Set(_ context.Context, key, value string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failSet != nil {
		return m.failSet
	}
	m.kv[key] = value
	m.setAt[key] = time.Now()
	return nil
}

func (m *memState) DeleteStale(_ context.Context, prefix string, before time.Time) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deletes = append(m.deletes, staleDelete{prefix, before})
	var n int64
	for k := range m.kv {
		if strings.HasPrefix(k, prefix) && m.setAt[k].Before(before) {
			delete(m.kv, k)
			delete(m.setAt, k)
			n++
		}
	}
	return n, nil
}

func (m *memState) KeysWithPrefix(_ context.Context, prefix string, since time.Time) (map[string]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]string{}
	for k, v := range m.kv {
		if strings.HasPrefix(k, prefix) && !m.setAt[k].Before(since) {
			out[k] = v
		}
	}
	return out, nil
}

func (m *memState) staleDeletes() []staleDelete {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]staleDelete(nil), m.deletes...)
}

func (m *memState) get(key string) string {
	v, _, _ := m.Get(context.Background(), key)
	return v
}

// sleeps records the waits the adapter asked for instead of waiting. The
// daily sweep of reply chains is the exception: its wait lasts until ctx
// ends, as it would in a test's few seconds, and is not recorded.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	if d >= chainSweep {
		<-ctx.Done()
		return ctx.Err()
	}
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// newTestAdapter is the adapter against the stub; it never sleeps.
func newTestAdapter(t *testing.T, s *stubAPI, st chat.PlatformState, mod ...func(*Config)) (*Adapter, *sleeps) {
	t.Helper()
	cfg := Config{Token: testToken, APIURL: s.URL(), State: st, PollTimeout: time.Second, Logger: discard}
	for _, m := range mod {
		m(&cfg)
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	sl := &sleeps{}
	a.sleep = sl.sleep
	return a, sl
}

// recorder is a chat.Handler that records; failMessages makes the next n
// HandleMessage calls fail.
type recorder struct {
	mu           sync.Mutex
	msgs         []chat.Message
	acts         []chat.Action
	failMessages int
	onMessage    func(chat.Message) // called first, outside the lock
	onAction     func(context.Context, chat.Action) error
	changed      chan struct{}
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{})} }

func (r *recorder) HandleMessage(_ context.Context, m chat.Message) error {
	if r.onMessage != nil {
		r.onMessage(m)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	defer r.notifyLocked()
	if r.failMessages > 0 {
		r.failMessages--
		return fmt.Errorf("inbox unavailable")
	}
	r.msgs = append(r.msgs, m)
	return nil
}

func (r *recorder) HandleAction(ctx context.Context, a chat.Action) error {
	r.mu.Lock()
	f := r.onAction
	r.mu.Unlock()
	var err error
	if f != nil {
		err = f(ctx, a)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acts = append(r.acts, a)
	r.notifyLocked()
	return err
}

func (r *recorder) HandleCommand(context.Context, chat.Command) error { return nil }

func (r *recorder) notifyLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *recorder) messages() []chat.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]chat.Message(nil), r.msgs...)
}

func (r *recorder) actions() []chat.Action {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]chat.Action(nil), r.acts...)
}

// waitFor blocks until cond holds on what the handler received.
func (r *recorder) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(hangLimit)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		ch := r.changed
		r.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// running starts a.Run and returns a stop that cancels it and returns what
// Run returned; stop also runs at cleanup.
func running(t *testing.T, a *Adapter, h chat.Handler) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, h) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(hangLimit):
				t.Errorf("Run did not return after cancel")
			}
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}
