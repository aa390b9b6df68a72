package main

import (
	"context"
	"time"

	"github.com/parleybot/parley/chat"
)

// preparer is an adapter that can start, before Run, what Run needs from
// its platform first (telegram.Adapter: getMe and deleteWebhook), so
// that the round trip overlaps opening the store.
type preparer interface {
	Prepare(ctx context.Context)
}

// prepare lets every adapter that can start what its Run needs first.
func prepare(ctx context.Context, adapters []chat.Adapter) {
	for _, a := range adapters {
		if p, ok := a.(preparer); ok {
			p.Prepare(ctx)
		}
	}
}

// pendingState is the adapters' chat.PlatformState while the store opens:
// parley run builds them before it (prepare), and they use their state
// only once they run, after set. A call before set waits for it.
type pendingState struct {
	ready chan struct{}
	s     chat.PlatformState
}

func newPendingState() *pendingState { return &pendingState{ready: make(chan struct{})} }

// set hands the store over; once only.
func (p *pendingState) set(s chat.PlatformState) {
	p.s = s
	close(p.ready)
}

func (p *pendingState) state(ctx context.Context) (chat.PlatformState, error) {
	select {
	case <-p.ready:
		return p.s, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *pendingState) Get(ctx context.Context, key string) (string, bool, error) {
	s, err := p.state(ctx)
	if err != nil {
		return "", false, err
	}
	return s.Get(ctx, key)
}

func (p *pendingState) Set(ctx context.Context, key, value string) error {
	s, err := p.state(ctx)
	if err != nil {
		return err
	}
	return s.Set(ctx, key, value)
}

func (p *pendingState) DeleteStale(ctx context.Context, prefix string, before time.Time) (int64, error) {
	s, err := p.state(ctx)
	if err != nil {
		return 0, err
	}
	return s.DeleteStale(ctx, prefix, before)
}

func (p *pendingState) KeysWithPrefix(ctx context.Context, prefix string, since time.Time) (map[string]string, error) {
	s, err := p.state(ctx)
	if err != nil {
		return nil, err
	}
	return s.KeysWithPrefix(ctx, prefix, since)
}
