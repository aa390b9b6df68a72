// Package metrics is what an operator watches Parley by: a /metrics page
// in Prometheus' text format, and /healthz and /readyz for a container
// platform (health.go), served on http.listen beside the platforms'
// webhooks (docs/operations.md).
//
// A Recorder keeps its own registry: nothing is registered with
// client_golang's global default, so two Recorders (tests, two cores in
// one process) never share a series. It is fed at boundaries Parley
// already has — bot.Metrics for turns and finals, a wrapped llm.Provider
// for model calls (provider.go), a wrapped http.RoundTripper per platform
// for API calls and 429s (transport.go), and the core's queues and the
// store's counts read at each scrape (gauges.go).
//
// Every label value comes from a fixed set (platform, outcome, class,
// method): ids, text, URLs and tokens never become labels.
package metrics

import (
	"net/http"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/parleybot/parley/bot"
)

// Recorder holds Parley's metrics and implements bot.Metrics. Safe for
// concurrent use.
type Recorder struct {
	reg       *prometheus.Registry
	now       func() time.Time
	platforms []string // the values of the platform label, with "console" and "other"

	turns       *prometheus.CounterVec
	errors      *prometheus.CounterVec
	modelCalls  prometheus.Counter
	tokens      *prometheus.CounterVec
	cost        *prometheus.CounterVec
	inbound     *prometheus.HistogramVec
	final       *prometheus.HistogramVec
	edits       *prometheus.CounterVec
	editBudget  *prometheus.CounterVec
	calls       *prometheus.CounterVec
	rateLimited *prometheus.CounterVec
}

var _ bot.Metrics = (*Recorder)(nil)

// Config configures a Recorder.
type Config struct {
	// Platforms are the enabled platforms: their series exist from the
	// start, at zero, so a rate over them is defined before the first
	// turn.
	Platforms []string
	// Now is the clock the model-request side of inbound → model is read
	// on; it must be the core's (default time.Now).
	Now func() time.Time
}

// Histogram buckets, in seconds. Inbound → model is Parley's own work
// (the target is 5 ms at the 99th percentile), so its buckets are fine
// around that; a final's delay includes pacing, up to the minutes a
// rate-limited final may wait.
func inboundBuckets() []float64 {
	return []float64{.0005, .001, .002, .003, .004, .005, .0075, .01, .015, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
}

func finalBuckets() []float64 {
	return []float64{.01, .025, .05, .1, .2, .3, .5, .75, 1, 1.5, 2, 3, 5, 10, 30, 60, 300}
}

// New returns a Recorder with its own registry, the Go runtime's and the
// process's collectors included.
func New(cfg Config) *Recorder {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	r := &Recorder{
		reg:       prometheus.NewRegistry(),
		now:       cfg.Now,
		platforms: slices.Clone(cfg.Platforms),
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parley_turns_total", Help: "Turns ended, by platform and outcome (answered, failed, stopped, interrupted, not_run).",
		}, []string{"platform", "outcome"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parley_errors_total", Help: "Failures by source (model, a platform, store) and class (rate_limit, server, network, auth, …).",
		}, []string{"source", "class"}),
		modelCalls: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "parley_model_requests_total", Help: "Model requests sent (every step, retry and compaction).",
		}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parley_model_tokens_total", Help: "Tokens the model reported, by direction (in: prompt, out: completion, cached: the part of the prompt read from the provider's cache).",
		}, []string{"direction"}),
		inbound: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "parley_inbound_to_model_seconds",
			Help:    "From a platform event reaching the core to its turn's first model request being sent.",
			Buckets: inboundBuckets(),
		}, []string{"platform"}),
		final: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "parley_final_visible_seconds",
			Help:    "From the model being done to the final answer being visible on the platform.",
			Buckets: finalBuckets(),
		}, []string{"platform"}),
		// Agent and model names come from the configuration: a fixed set.
		cost: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parley_cost_dollars_total", Help: "What turns' model calls cost in US dollars, by agent and model (calls of models without a known price add nothing).",
		}, []string{"agent", "model"}),
		edits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parley_edits_total", Help: "Edits of messages made on the platform (edits, drafts, stream appends) that it accepted.",
		}, []string{"platform"}),
		editBudget: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parley_edit_budget_total", Help: "Edits the platform's pacing budget allowed while answers streamed (burst + streaming time ÷ edit interval, per answer).",
		}, []string{"platform"}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parley_platform_requests_total", Help: "Platform API requests, by platform and method.",
		}, []string{"platform", "method"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parley_platform_rate_limited_total", Help: "Platform API requests answered 429, by platform and method.",
		}, []string{"platform", "method"}),
	}
	r.reg.MustRegister(r.turns, r.errors, r.modelCalls, r.tokens, r.cost, r.inbound, r.final, r.edits, r.editBudget,
		r.calls, r.rateLimited, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, dir := range []string{"in", "out", "cached"} {
		r.tokens.WithLabelValues(dir)
	}
	for _, p := range cfg.Platforms {
		p = r.platformLabel(p)
		for _, o := range outcomes() {
			r.turns.WithLabelValues(p, string(o))
		}
		r.inbound.WithLabelValues(p)
		r.final.WithLabelValues(p)
		r.edits.WithLabelValues(p)
		r.editBudget.WithLabelValues(p)
	}
	return r
}

// outcomes are the values of the outcome label.
func outcomes() []bot.TurnOutcome {
	return []bot.TurnOutcome{bot.TurnAnswered, bot.TurnFailed, bot.TurnStopped, bot.TurnInterrupted, bot.TurnNotRun}
}

// Handler serves the metrics in Prometheus' text format (or OpenMetrics,
// when the scraper asks for it).
func (r *Recorder) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
}

// Registry is where the metrics live, for tests and for adding
// collectors.
func (r *Recorder) Registry() *prometheus.Registry { return r.reg }

// TurnEnded implements bot.Metrics.
func (r *Recorder) TurnEnded(platform string, outcome bot.TurnOutcome) {
	o := "other"
	if slices.Contains(outcomes(), outcome) {
		o = string(outcome)
	}
	r.turns.WithLabelValues(r.platformLabel(platform), o).Inc()
}

// FinalShown implements bot.Metrics.
func (r *Recorder) FinalShown(platform string, d time.Duration, allowed int) {
	p := r.platformLabel(platform)
	r.final.WithLabelValues(p).Observe(d.Seconds())
	if allowed > 0 {
		r.editBudget.WithLabelValues(p).Add(float64(allowed))
	}
}

// Spent implements bot.Metrics.
func (r *Recorder) Spent(agent, model string, nanos int64) {
	r.cost.WithLabelValues(agent, model).Add(float64(nanos) / 1e9)
}

// platformLabel is platform if it is one of Config.Platforms or the
// terminal, else "other": the label's values stay a fixed set whatever a
// caller passes.
func (r *Recorder) platformLabel(platform string) string {
	if platform == "console" || slices.Contains(r.platforms, platform) {
		return platform
	}
	return "other"
}
