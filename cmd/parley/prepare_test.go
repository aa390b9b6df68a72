package main

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/chat"
)

type memState map[string]string

func (m memState) Get(_ context.Context, key string) (string, bool, error) {
	v, ok := m[key]
	return v, ok, nil
}
func (m memState) Set(_ context.Context, key, value string) error { m[key] = value; return nil }
func (m memState) DeleteStale(context.Context, string, time.Time) (int64, error) {
	return 0, nil
}
func (m memState) KeysWithPrefix(context.Context, string, time.Time) (map[string]string, error) {
	return map[string]string(m), nil
}

var _ chat.PlatformState = (*pendingState)(nil)

// TestPendingState: a call before the store is handed over waits for it,
// or ends with its context; after, every call reaches the store.
func TestPendingState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPendingState()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, _, err := p.Get(ctx, "k"); !errors.Is(err, context.Canceled) {
			t.Errorf("Get before set with an ended context = %v, want context.Canceled", err)
		}
		got := make(chan error, 1)
		go func() { got <- p.Set(t.Context(), "k", "v") }()
		synctest.Wait()
		select {
		case err := <-got:
			t.Fatalf("Set before the store was handed over returned %v: it must wait", err)
		default:
		}
		store := memState{}
		p.set(store)
		if err := <-got; err != nil || store["k"] != "v" {
			t.Fatalf("a Set waiting for the store = %v, store %v", err, store)
		}
		if v, ok, err := p.Get(t.Context(), "k"); v != "v" || !ok || err != nil {
			t.Errorf("Get = %q, %v, %v", v, ok, err)
		}
		if keys, err := p.KeysWithPrefix(t.Context(), "", time.Time{}); err != nil || keys["k"] != "v" {
			t.Errorf("KeysWithPrefix = %v, %v", keys, err)
		}
		if _, err := p.DeleteStale(t.Context(), "", time.Time{}); err != nil {
			t.Errorf("DeleteStale = %v", err)
		}
	})
}
