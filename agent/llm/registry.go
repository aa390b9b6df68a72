package llm

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
)

// Registry routes "provider/model" names to registered providers. It is
// filled once at start-up and read-only afterwards.
type Registry struct {
	providers map[string]Provider
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

// Resolve returns a Provider bound to the model named "provider/model".
func (r *Registry) Resolve(name string) (Provider, error) {
	prov, model, err := SplitModel(name)
	if err != nil {
		return nil, err
	}
	p, ok := r.providers[prov]
	if !ok {
		return nil, fmt.Errorf("model %q: provider %q is not configured (configured: %s)", name, prov, strings.Join(r.Names(), ", "))
	}
	return bound{p: p, model: model}, nil
}

// bound fixes the model name of every request.
type bound struct {
	p     Provider
	model string
}

func (b bound) Stream(ctx context.Context, req Request) iter.Seq2[Event, error] {
	req.Model = b.model
	return b.p.Stream(ctx, req)
}
