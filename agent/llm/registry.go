package llm

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
)

// Registry routes model names to registered providers, and fits each call
// to its model (see Resolve). It is filled once at start-up and read-only
// afterwards.
type Registry struct {
	providers map[string]Provider
	models    Models
}

// UseModels sets the table of models Resolve consults; without it, the
// built-in table alone.
func (r *Registry) UseModels(m Models) { r.models = m }

// Info returns what the registry knows of a model, by any name Resolve
// takes.
func (r *Registry) Info(name string) ModelInfo {
	if c, err := Canonical(name); err == nil {
		name = c
	}
	return r.models.Info(name)
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{providers: map[string]Provider{}}
}

// Register adds a provider under name ("openai", "anthropic").
func (r *Registry) Register(name string, p Provider) {
	r.providers[name] = p
}

// Names lists the registered provider names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.providers))
	for n := range r.providers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// SplitModel splits "provider/model" at the first slash; model names may
// themselves contain slashes ("openai/meta-llama/llama-3.1-8b" on OpenRouter).
func SplitModel(name string) (provider, model string, err error) {
	provider, model, ok := strings.Cut(name, "/")
	if !ok || provider == "" || model == "" {
		return "", "", fmt.Errorf("model %q: want provider/model, e.g. openai/gpt-4o-mini or anthropic/claude-sonnet-4-5", name)
	}
	return provider, model, nil
}

// Resolve returns a Provider bound to the model named "provider/model",
// or by a bare name (see Canonical). Each call it makes is fitted to the
// model: its answer size and thinking budget within the model's limits
// (ModelInfo), thinking not asked of a model that cannot, thinking blocks
// of other models left out; its Response names the model, and its use is
// reported to the context's usage trace (WithUsageTrace).
func (r *Registry) Resolve(name string) (Provider, error) {
	full, err := Canonical(name)
	if err != nil {
		return nil, err
	}
	prov, model, _ := SplitModel(full)
	p, ok := r.providers[prov]
	if !ok {
		return nil, fmt.Errorf("model %q: provider %q is not configured (configured: %s)", name, prov, strings.Join(r.Names(), ", "))
	}
	return bound{p: p, name: full, model: model, info: r.models.Info(full)}, nil
}

// bound fits every request to one model.
type bound struct {
	p     Provider
	name  string // provider/model
	model string
	info  ModelInfo
}

func (b bound) Stream(ctx context.Context, req Request) iter.Seq2[Event, error] {
	req = b.info.budget(req)
	req.Model = b.model
	req.Messages = ForModel(req.Messages, b.name)
	return func(yield func(Event, error) bool) {
		for ev, err := range b.p.Stream(ctx, req) {
			if ev.Kind == EventDone && ev.Response != nil {
				if ev.Response.Model == "" {
					ev.Response.Model = b.name
				}
				traceCall(ctx, b.info, b.name, ev.Response.Usage)
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// ForModel returns msgs as model ("provider/model") may see them: the
// thinking blocks of answers another model wrote are left out. Their
// signatures prove them to the model that wrote them only, and no provider
// takes another's reasoning; the answers themselves stay. msgs is not
// modified.
func ForModel(msgs []Message, model string) []Message {
	var out []Message
	for i, m := range msgs {
		if len(m.Thinking) == 0 || m.Model == model {
			continue
		}
		if out == nil {
			out = slices.Clone(msgs)
		}
		out[i].Thinking = nil
	}
	if out == nil {
		return msgs
	}
	return out
}
