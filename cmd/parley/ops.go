package main

import (
	"errors"
	"net/http"

	"github.com/parleybot/parley/adapters/inbound"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/metrics"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// operator is what an operator watches Parley by: /metrics, /healthz and
// /readyz on http.listen (docs/operations.md), and the hooks that feed
// the metrics. A nil *operator (http.listen not set) serves and counts
// nothing; its methods then leave everything as it was.
type operator struct {
	rec *metrics.Recorder
}

// newOperator returns the operator endpoints cfg asks for, or nil.
func newOperator(cfg *config.Config) *operator {
	if !cfg.HTTP.Ops() {
		return nil
	}
	return &operator{rec: metrics.New(metrics.Config{Platforms: cfg.EnabledPlatforms()})}
}

// provider is p, counted.
func (o *operator) provider(p llm.Provider) llm.Provider {
	if o == nil {
		return p
	}
	return o.rec.Provider(p)
}

// modelClient is a new HTTP client for model servers: the providers'
// default (llm.Config.Client: its timeouts, its idle connections), timing
// inbound → model when metrics are on.
func (o *operator) modelClient() *http.Client {
	base := llm.Config{}.Client()
	if o == nil {
		return base
	}
	return &http.Client{Transport: o.rec.ModelTransport(base.Transport)}
}

// httpClient is the client platform's adapter calls its API with, counted;
// nil (the adapter's default) without metrics.
func (o *operator) httpClient(platform chat.Platform) *http.Client {
	if o == nil {
		return nil
	}
	return &http.Client{Transport: o.rec.Transport(platform, http.DefaultTransport)}
}

// metrics is what the core reports to; nil without metrics (never a
// typed nil in the interface).
func (o *operator) metrics() bot.Metrics {
	if o == nil {
		return nil
	}
	return o.rec
}

// serve registers the endpoints on web, once the core they report on
// exists. web is not nil whenever o is not (inboundServer).
func (o *operator) serve(web *inbound.Server, core *bot.Core, db backend, adapters []chat.Adapter) error {
	if o == nil {
		return nil
	}
	if web == nil {
		return errors.New("operator endpoints without an HTTP server")
	}
	if err := o.rec.Watch(core, db); err != nil {
		return err
	}
	o.rec.Serve(web, metrics.Health{Store: db, Adapters: adapters})
	return nil
}
