package bottest

import "context"

// faultPlan is what is injected into one Op.
type faultPlan struct {
	before      []error // FailNext: refused before anything happens, in order
	after       []error // FailAfter: the call takes effect, then errs
	afterRef    bool    // FailAfter on Send: the ref comes back with the error
	rate        float64 // FailRate: probability of rateErr per call
	rateErr     error
	rateCounted int   // calls failed by FailRate
	fromAllowed int   // FailFrom: calls still let through
	fromErr     error // FailFrom: then every call fails with this; nil when off
}

func (a *Adapter) plan(op Op) *faultPlan {
	p, ok := a.faults[op]
	if !ok {
		p = &faultPlan{}
		a.faults[op] = p
	}
	return p
}

// FailNext makes the next n calls of op fail with err before they do
// anything: a 429 (RateLimited), a 5xx (ErrServer), a network error.
func (a *Adapter) FailNext(op Op, n int, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.plan(op)
	for range n {
		p.before = append(p.before, err)
	}
}

// FailRate makes every call of op fail with err, before doing anything,
// with probability p (pseudo-random from Config.Seed, so a run is
// repeatable for a given order of calls): a 429 storm is
// FailRate(OpEdit, 0.4, RateLimited(2*time.Second)). p = 0 stops it.
func (a *Adapter) FailRate(op Op, p float64, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	pl := a.plan(op)
	pl.rate, pl.rateErr = p, err
}

// FailFrom lets the next n calls of op through and makes every call after
// them fail with err, before it does anything, until ClearFaults: a
// platform that goes away in the middle of a long answer.
func (a *Adapter) FailFrom(op Op, n int, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.plan(op)
	p.fromAllowed, p.fromErr = n, err
}

// FailAfter makes the next n calls of op take effect and then return err:
// the message is created or edited, but the caller hears of a failure.
// With returnRef, a failed Send still returns the new message's ref (an
// adapter that could read the answer); without it the caller learns
// nothing (a timeout after the platform acted).
func (a *Adapter) FailAfter(op Op, n int, err error, returnRef bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.plan(op)
	for range n {
		p.after = append(p.after, err)
	}
	p.afterRef = returnRef
}

// ClearFaults removes every injected fault.
func (a *Adapter) ClearFaults() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.faults)
}

// Injected returns how many calls the injected faults of op have failed
// so far by FailRate.
func (a *Adapter) Injected(op Op) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if p, ok := a.faults[op]; ok {
		return p.rateCounted
	}
	return 0
}

// injected returns the error a call of op must fail with before it acts:
// a cancelled context (as an HTTP client would), a FailNext, a FailFrom,
// a FailRate.
// Called with a.mu held.
func (a *Adapter) injected(ctx context.Context, op Op) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, ok := a.faults[op]
	if !ok {
		return nil
	}
	if len(p.before) > 0 {
		err := p.before[0]
		p.before = p.before[1:]
		return err
	}
	if p.fromErr != nil {
		if p.fromAllowed <= 0 {
			return p.fromErr
		}
		p.fromAllowed--
	}
	if p.rate > 0 && a.rng.Float64() < p.rate {
		p.rateCounted++
		return p.rateErr
	}
	return nil
}

// failAfter returns the error an applied call of op must report, and
// whether a Send keeps its ref. Called with a.mu held.
func (a *Adapter) failAfter(op Op) (error, bool) {
	p, ok := a.faults[op]
	if !ok || len(p.after) == 0 {
		return nil, false
	}
	err := p.after[0]
	p.after = p.after[1:]
	return err, p.afterRef
}
