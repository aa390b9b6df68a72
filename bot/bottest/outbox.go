package bottest

import (
	"context"
	"slices"
	"sync"

	"github.com/parleybot/parley/bot/outbound"
)

// Outbox is an in-memory outbound.Outbox, for tests that drive a Delivery
// without a database. The zero value is empty and ready.
type Outbox struct {
	mu    sync.Mutex
	recs  map[string]outbound.OutboxRecord
	saves int
}

var _ outbound.Outbox = (*Outbox)(nil)

func (o *Outbox) Reply(_ context.Context, key string) (outbound.OutboxRecord, bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	rec, ok := o.recs[key]
	rec.Refs = slices.Clone(rec.Refs)
	return rec, ok, nil
}

func (o *Outbox) SaveReply(_ context.Context, rec outbound.OutboxRecord) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.recs == nil {
		o.recs = map[string]outbound.OutboxRecord{}
	}
	rec.Refs = slices.Clone(rec.Refs)
	o.recs[rec.InboxKey] = rec
	o.saves++
	return nil
}

// Saves counts SaveReply's calls.
func (o *Outbox) Saves() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.saves
}

// HasRef reports whether any record holds the message ref.
func (o *Outbox) HasRef(ref string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, r := range o.recs {
		if slices.Contains(r.Refs, ref) {
			return true
		}
	}
	return false
}
