package llm

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"log/slog"
	"sync"
	"time"
)

// Fallback is a Provider over a chain of models, the primary first. A call
// goes to the first model whose circuit breaker is closed; when that model
// fails in a way another model may not — its key rejected, the model
// unknown, an outage that outlasted the agent's retries — the same call
// continues on the next model, and the model's breaker stays open for a
// cool-down, so later calls skip it until it is worth trying again.
//
// It is a Provider rather than part of the agent's run loop so every model
// call falls back alike (answers, compaction summaries, reflections), and
// so the agent keeps one retry layer: its retries of a failed call come
// back here, and it is the breaker's count of failures in a row that says
// the retries are spent. A call tries each model at most once, and each
// call starts again from the primary: nothing keeps a conversation on a
// fallback model once its primary works.
type Fallback struct {
	models []Candidate
	opts   FallbackOptions

	mu       sync.Mutex
	breakers []breaker
}

// Candidate is one model of a Fallback chain.
type Candidate struct {
	Name     string // "provider/model", for logs and events
	Provider Provider
}

// FallbackOptions tune a Fallback; the zero value has the defaults.
type FallbackOptions struct {
	// Failures is how many calls in a row may fail on one model with a
	// rate limit, a server or a network error — errors a retry may cure —
	// before its breaker opens and the call moves on (default 3). The
	// agent retries in between, so this is "after the retries".
	Failures int
	// Cooldown is how long an open breaker keeps calls off its model
	// (default a minute). After it, the next call tries the model again:
	// success closes the breaker, a failure opens it for another cool-down.
	Cooldown time.Duration
	// MaxWait: a rate limit asking to wait longer than this opens the
	// breaker at once (default 30 s, the agent's longest retry wait).
	MaxWait time.Duration
	// Sees reports whether the chain's model name ("provider/model") can
	// see images. A call that moves to a model that cannot has the
	// request's images replaced by their placeholders there: sent to it,
	// they would fail the call (a 400) in the middle of an outage. nil:
	// every model sees, as far as the caller knows.
	Sees   func(name string) bool
	Now    func() time.Time // default time.Now
	Logger *slog.Logger     // default slog.Default()
}

// breaker is one model's circuit breaker.
type breaker struct {
	failures  int       // retryable failures in a row
	openUntil time.Time // zero: closed; past: half-open, one failure re-opens it
}

// NewFallback returns a Fallback over models, the primary first.
func NewFallback(models []Candidate, opts FallbackOptions) *Fallback {
	opts.Failures = cmp.Or(opts.Failures, 3)
	opts.Cooldown = cmp.Or(opts.Cooldown, time.Minute)
	opts.MaxWait = cmp.Or(opts.MaxWait, 30*time.Second)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Fallback{models: models, opts: opts, breakers: make([]breaker, len(models))}
}

// Fallback resolves names (the primary first) into a Fallback chain.
func (r *Registry) Fallback(names []string, opts FallbackOptions) (*Fallback, error) {
	models := make([]Candidate, 0, len(names))
	for _, n := range names {
		p, err := r.Resolve(n)
		if err != nil {
			return nil, err
		}
		full, _ := Canonical(n)
		models = append(models, Candidate{Name: full, Provider: p})
	}
	if len(models) == 0 {
		return nil, fmt.Errorf("llm: a fallback chain needs at least one model")
	}
	return NewFallback(models, opts), nil
}

// Stream implements Provider. Between two models it yields EventFallback:
// what the first one streamed is void.
func (f *Fallback) Stream(ctx context.Context, req Request) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		order := f.order()
		for n, i := range order {
			var failure error
			for ev, err := range f.models[i].Provider.Stream(ctx, f.requestFor(i, req)) {
				if err != nil {
					failure = err
					break
				}
				if ev.Kind == EventDone {
					f.succeeded(i)
				}
				if !yield(ev, nil) || ev.Kind == EventDone {
					return
				}
			}
			if failure == nil { // a provider that ended without a word
				failure = ErrIncomplete
			}
			if !f.failed(i, failure) || n == len(order)-1 {
				yield(Event{}, failure)
				return
			}
			next := f.models[order[n+1]].Name
			f.opts.Logger.Warn("model failed; the call continues on the next model",
				"model", f.models[i].Name, "next", next, "err", failure)
			if !yield(Event{Kind: EventFallback, Text: next, Err: failure}, nil) {
				return
			}
		}
	}
}

// whyFallbackBlind is the placeholder's reason on a fallback model that
// cannot see.
const whyFallbackBlind = "the model answering now cannot see images, so only this note stands for it"

// requestFor is req as model i is sent it: without images for a model
// that cannot see them (FallbackOptions.Sees).
func (f *Fallback) requestFor(i int, req Request) Request {
	if f.opts.Sees == nil || f.opts.Sees(f.models[i].Name) {
		return req
	}
	req.Messages = WithoutImages(req.Messages, len(req.Messages), whyFallbackBlind)
	return req
}

// order is the models a call may try, in chain order: those whose breaker
// is closed or has cooled down. When every one is open, the one that
// cools down first: a call must try something.
func (f *Fallback) order() []int {
	now := f.opts.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []int
	soonest := 0
	for i, b := range f.breakers {
		if !now.Before(b.openUntil) {
			out = append(out, i)
		}
		if b.openUntil.Before(f.breakers[soonest].openUntil) {
			soonest = i
		}
	}
	if len(out) == 0 {
		out = []int{soonest}
	}
	return out
}

func (f *Fallback) succeeded(i int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.breakers[i].openUntil.IsZero() {
		f.opts.Logger.Info("model answers again; its breaker is closed", "model", f.models[i].Name)
	}
	f.breakers[i] = breaker{}
}

// failed records a failure of model i and reports whether the call should
// move on to the next model. Failures that are the request's own (a bad
// request, a prompt too long) or the caller's (cancellation) say nothing
// of the model and are returned to the caller as they are.
func (f *Fallback) failed(i int, err error) bool {
	e, ok := AsError(err)
	if !ok {
		return false
	}
	now := f.opts.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	b := &f.breakers[i]
	switch {
	case switchAtOnce(e, f.opts.MaxWait):
	case e.Retryable():
		b.failures++
		if b.failures < f.opts.Failures && b.openUntil.IsZero() {
			return false // the agent retries this model first
		}
	default:
		return false
	}
	b.failures = 0
	b.openUntil = now.Add(f.opts.Cooldown)
	return true
}

// switchAtOnce reports the failures no retry of the same model cures: the
// key rejected, the model unknown, an account out of credit, a rate limit
// longer than anyone waits in a chat.
func switchAtOnce(e *Error, maxWait time.Duration) bool {
	switch e.Kind {
	case KindAuth:
		return true
	case KindBadRequest:
		// 404: no such model (or endpoint); 402, and OpenAI's 429
		// insufficient_quota: out of credit.
		return e.Status == 404 || e.Status == 402 || e.Status == 429
	case KindRateLimit:
		return e.RetryAfter > maxWait
	}
	return false
}

// Models names the chain's models, the primary first.
func (f *Fallback) Models() []string {
	out := make([]string, len(f.models))
	for i, m := range f.models {
		out[i] = m.Name
	}
	return out
}
