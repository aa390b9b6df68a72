package bot

import (
	"context"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
	"sync/atomic"
	"time"
)

// Metrics is told what the core does, for an operator's /metrics page
// (bot/metrics implements it with Prometheus). Arguments are a platform
// name, a value of a fixed set or a number — never text, ids or secrets —
// so nothing a person wrote can reach a label. Calls run on a turn's path
// and must not block.
type Metrics interface {
	// TurnEnded counts one turn of platform that ended with outcome.
	TurnEnded(platform string, outcome TurnOutcome)
	// FinalShown reports a turn's final answer on platform, shown d after
	// the model was done (the time Reply.Finish took), and allowed: the
	// edits the platform's budget allowed while the answer streamed
	// (burst + streaming time ÷ edit interval, 0 when nothing streamed).
	FinalShown(platform string, d time.Duration, allowed int)
	// Spent counts what a model call for agent cost (costs.go).
	Spent(agent, model string, nanos int64)
}

// TurnOutcome is how a turn ended: one of a fixed set, usable as a label.
type TurnOutcome string

const (
	TurnAnswered    TurnOutcome = "answered"    // the model's answer was shown
	TurnFailed      TurnOutcome = "failed"      // the run failed; a note was shown
	TurnStopped     TurnOutcome = "stopped"     // /stop
	TurnInterrupted TurnOutcome = "interrupted" // shutdown; resumed after the restart
	TurnNotRun      TurnOutcome = "not_run"     // no adapter or no reply to answer with
)

// Load is what the core has in hand at one moment, for /metrics gauges.
type Load struct {
	Queued  int // messages and recovered work waiting behind a conversation's running turn
	Waiting int // turns waiting for one of the MaxConcurrent slots
	Running int // turns holding a slot (the model is working for them)
}

// Load reports what the core has in hand now.
func (c *Core) Load() Load { return c.router.load() }

// load counts the router's queues and slots.
func (r *Router) load() Load {
	var l Load
	r.mu.Lock()
	for _, st := range r.sessions {
		l.Queued += len(st.queue) + len(st.work)
	}
	r.mu.Unlock()
	r.slots.mu.Lock()
	l.Waiting = len(r.slots.waiting)
	for _, n := range r.slots.held {
		l.Running += n
	}
	r.slots.mu.Unlock()
	return l
}

// inboundStamp travels in a turn's context from the router, which knows
// when the turn's event arrived, to the model call, which knows when its
// request goes out (InboundToModel).
type inboundStamp struct {
	platform string
	at       time.Time
	told     atomic.Bool // the first model request took the stamp
}

type inboundKey struct{}

// withInbound marks ctx as a turn answering an event of platform received
// at at. A zero at (a recovered turn, a scheduled run) leaves ctx as it
// is: its wait says nothing about this process's speed.
func withInbound(ctx context.Context, platform string, at time.Time) context.Context {
	if at.IsZero() {
		return ctx
	}
	return context.WithValue(ctx, inboundKey{}, &inboundStamp{platform: platform, at: at})
}

// InboundToModel is for whatever sends model requests (a Provider
// wrapper): it returns how long before now the event that the turn in ctx
// answers was received from its platform, and the platform. Only the
// turn's first request gets ok: later ones (tool steps, retries,
// compaction) do not wait on the inbound path, and requests outside a
// turn answering a fresh event get nothing.
func InboundToModel(ctx context.Context, now time.Time) (platform string, d time.Duration, ok bool) {
	s, _ := ctx.Value(inboundKey{}).(*inboundStamp)
	if s == nil || !s.told.CompareAndSwap(false, true) {
		return "", 0, false
	}
	return s.platform, now.Sub(s.at), true
}

// meteredReply times a turn's final delivery for Metrics: from the
// Finish call (the model is done) until Finish returns (delivery says the
// final is visible), and the edit budget of the time it streamed.
type meteredReply struct {
	outbound.Reply
	m        Metrics
	platform string
	now      func() time.Time
	// every and burst are the thread's edit budget; every ≤ 0: unpaced.
	every time.Duration
	burst int

	firstText time.Time // of the text streamed since the last Reset
}

// meter wraps reply for r's Metrics; without Metrics it is reply itself.
func (r *Router) meter(reply outbound.Reply, a chat.Adapter, t chat.Thread) outbound.Reply {
	if r.cfg.Metrics == nil {
		return reply
	}
	c := a.Capabilities()
	every, burst := c.EditEvery, c.EditBurst
	if c.PaceOf != nil {
		every, burst = c.PaceOf(t)
	}
	return &meteredReply{Reply: reply, m: r.cfg.Metrics, platform: t.Platform, now: r.cfg.Now, every: every, burst: max(burst, 1)}
}

func (w *meteredReply) Delta(ctx context.Context, text string) error {
	if w.firstText.IsZero() && text != "" {
		w.firstText = w.now()
	}
	return w.Reply.Delta(ctx, text)
}

func (w *meteredReply) Reset(ctx context.Context) error {
	w.firstText = time.Time{} // streamed again: the budget starts over
	return w.Reply.Reset(ctx)
}

func (w *meteredReply) Finish(ctx context.Context, final string) error {
	start := w.now()
	err := w.Reply.Finish(ctx, final)
	allowed := 0
	if !w.firstText.IsZero() && w.every > 0 {
		allowed = w.burst + int(start.Sub(w.firstText)/w.every)
	}
	w.m.FinalShown(w.platform, w.now().Sub(start), allowed)
	return err
}

// stampReceived notes that the message key reached the router now, for
// Metrics' inbound → model latency and the turn's kept latency
// (turnlog.go). The note leaves with the turn that answers the message
// (takeReceived), or at once when none will.
func (r *Router) stampReceived(key string) {
	now := r.cfg.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.received[key] = now
}

// takeReceived forgets keys' notes and returns the first's, zero when it
// has none: a message read back from the inbox after a restart, whose
// wait says nothing of this process.
func (r *Router) takeReceived(keys ...string) time.Time {
	if len(keys) == 0 {
		return time.Time{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	at := r.received[keys[0]]
	for _, k := range keys {
		delete(r.received, k)
	}
	return at
}

// endTurn tells Metrics how a turn of platform ended.
func (r *Router) endTurn(platform string, outcome TurnOutcome) {
	if r.cfg.Metrics != nil {
		r.cfg.Metrics.TurnEnded(platform, outcome)
	}
}
