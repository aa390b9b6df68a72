package llm

import "context"

// A usage trace follows a unit of work (a turn) into every model call
// made for it, wherever the call is made — the turn's own steps,
// compaction, the memory judge a tool asks, a task's helpers — as
// net/http/httptrace follows a request: the work's owner, who knows whom
// the calls are for, puts it in the context; Registry's bound providers,
// through which every call passes, report to it.

// CallCost is one model call's use and price, as a usage trace receives it.
type CallCost struct {
	// Model is the "provider/model" called.
	Model string
	Usage Usage
	// Nanos is the price in billionths of a dollar when Priced.
	Nanos  int64
	Priced bool
}

type traceKey struct{}

// WithUsageTrace returns ctx carrying trace, which each model call made
// with the context (or one derived from it) reports to once it is done.
// trace must be safe to call from several goroutines (a task's helpers
// call models at once).
func WithUsageTrace(ctx context.Context, trace func(context.Context, CallCost)) context.Context {
	return context.WithValue(ctx, traceKey{}, trace)
}

// traceCall reports a finished call to ctx's usage trace, if any.
func traceCall(ctx context.Context, info ModelInfo, model string, u Usage) {
	trace, _ := ctx.Value(traceKey{}).(func(context.Context, CallCost))
	if trace == nil {
		return
	}
	c := CallCost{Model: model, Usage: u, Priced: info.Priced}
	if info.Priced {
		c.Nanos = info.Price.Nanos(u)
	}
	trace(ctx, c)
}
