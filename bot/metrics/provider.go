package metrics

import (
	"context"
	"errors"
	"iter"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
)

// Provider wraps p so that every model request is counted: its tokens,
// its failures by class, and — for a turn's first request — how long after
// the turn's event arrived it was sent (bot.InboundToModel).
func (r *Recorder) Provider(p llm.Provider) llm.Provider { return provider{p: p, r: r} }

type provider struct {
	p llm.Provider
	r *Recorder
}

// Stream stamps the request when the caller starts ranging, which is when
// the wrapped provider builds and sends it.
func (w provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		if platform, d, ok := bot.InboundToModel(ctx, w.r.now()); ok {
			w.r.inbound.WithLabelValues(platformLabel(platform)).Observe(d.Seconds())
		}
		w.r.modelCalls.Inc()
		for ev, err := range w.p.Stream(ctx, req) {
			switch {
			case err != nil:
				w.r.modelError(ctx, err)
			case ev.Kind == llm.EventDone && ev.Response != nil:
				w.r.tokens.WithLabelValues("in").Add(float64(ev.Response.Usage.InputTokens))
				w.r.tokens.WithLabelValues("out").Add(float64(ev.Response.Usage.OutputTokens))
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// modelError counts a failed model request by its class. A request the
// caller cancelled (/stop, shutdown) did not fail.
func (r *Recorder) modelError(ctx context.Context, err error) {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return
	}
	r.errors.WithLabelValues("model", modelClass(err)).Inc()
}

// modelClass names err's llm.ErrorKind as a label value.
func modelClass(err error) string {
	if errors.Is(err, llm.ErrIncomplete) {
		return "incomplete"
	}
	e, ok := llm.AsError(err)
	if !ok {
		return "unknown"
	}
	switch e.Kind {
	case llm.KindAuth:
		return "auth"
	case llm.KindRateLimit:
		return "rate_limit"
	case llm.KindServer:
		return "server"
	case llm.KindNetwork:
		return "network"
	case llm.KindBadRequest:
		return "bad_request"
	case llm.KindContextOverflow:
		return "context_overflow"
	}
	return "unknown"
}
