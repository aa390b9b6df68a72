package metrics

import (
	"context"
	"errors"
	"iter"
	"net/http"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
)

// Provider wraps p so that every model request is counted: its tokens
// and its failures by class. How long after a turn's event its first
// request went out is the model client's to tell (ModelTransport).
func (r *Recorder) Provider(p llm.Provider) llm.Provider { return provider{p: p, r: r} }

// ModelTransport wraps next (nil: http.DefaultTransport), the transport
// of the model provider's HTTP client, to observe inbound → model: the
// moment a turn's first request is handed to the network is when it is
// sent, after the SDK has built and encoded it (bot.InboundToModel reads
// the turn from the request's context).
func (r *Recorder) ModelTransport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return modelTransport{r: r, next: next}
}

type modelTransport struct {
	r    *Recorder
	next http.RoundTripper
}

func (t modelTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if platform, d, ok := bot.InboundToModel(req.Context(), t.r.now()); ok {
		t.r.inbound.WithLabelValues(t.r.platformLabel(platform)).Observe(d.Seconds())
	}
	return t.next.RoundTrip(req)
}

// CloseIdleConnections passes on to the transport below, so that
// http.Client.CloseIdleConnections reaches it through this one.
func (t modelTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

type provider struct {
	p llm.Provider
	r *Recorder
}

func (w provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		w.r.modelCalls.Inc()
		for ev, err := range w.p.Stream(ctx, req) {
			switch {
			case err != nil:
				w.r.modelError(ctx, err)
			case ev.Kind == llm.EventDone && ev.Response != nil:
				w.r.tokens.WithLabelValues("in").Add(float64(ev.Response.Usage.InputTokens))
				w.r.tokens.WithLabelValues("out").Add(float64(ev.Response.Usage.OutputTokens))
				w.r.tokens.WithLabelValues("cached").Add(float64(ev.Response.Usage.CachedTokens))
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
