package evolve

import (
	"context"
	"sync"
	"time"

	"github.com/parleybot/parley/agent/llm"
)

// Each reflection a cycle runs is kept as a record — what it changed and
// what it cost — so an operator sees what learning costs (the console's
// Learning page), not only the last cycle's sum that parley reflect
// prints.

// ReflectionRecord is one reflection as kept.
type ReflectionRecord struct {
	ID    int64 // assigned by the store, increasing
	Scope string
	At    time.Time
	// Changes is how many changes it made.
	Changes int
	// Calls and Tokens are the model calls and tokens it spent (the
	// cycle's count, estimated where a provider reports no usage).
	Calls, Tokens int
	// Nanos is what its priced model calls cost, in billionths of a
	// dollar; Unpriced counts the calls of models without a known price.
	Nanos    int64
	Unpriced int
	// Err is why it failed or stopped short; "" when it did not.
	Err string
}

// ReflectionLog keeps reflection records (both store engines).
type ReflectionLog interface {
	RecordReflection(ctx context.Context, r ReflectionRecord) error
	// Reflections lists the latest records, newest first, at most limit.
	Reflections(ctx context.Context, limit int) ([]ReflectionRecord, error)
}

// priced sums what a reflection's model calls cost, as its context's
// usage trace hears them; the judge's calls the guard makes count too.
type priced struct {
	mu       sync.Mutex
	nanos    int64
	unpriced int
}

// trace is ctx with a usage trace adding each call to p and passing it
// on to spent (nil: nowhere).
func (p *priced) trace(ctx context.Context, spent func(context.Context, llm.CallCost)) context.Context {
	return llm.WithUsageTrace(ctx, func(ctx context.Context, c llm.CallCost) {
		p.mu.Lock()
		if c.Priced {
			p.nanos += c.Nanos
		} else {
			p.unpriced++
		}
		p.mu.Unlock()
		if spent != nil {
			spent(ctx, c)
		}
	})
}

func (p *priced) sum() (int64, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.nanos, p.unpriced
}

// record is r as kept.
func (r Reflected) record(at time.Time) ReflectionRecord {
	rec := ReflectionRecord{Scope: r.Scope, At: at, Changes: len(r.Changes), Calls: r.Calls, Tokens: r.Tokens,
		Nanos: r.Nanos, Unpriced: r.Unpriced}
	if r.Err != nil {
		rec.Err = r.Err.Error()
	}
	return rec
}
