package llm

import (
	"fmt"
	"strings"
)

// Provider names a model may carry ("provider/model").
const (
	OpenAI    = "openai"
	Anthropic = "anthropic"
)

// Canonical returns name as "provider/model". A name with a slash is
// taken as provider/model; a bare name resolves by its family: gpt-…,
// chatgpt-…, o1…, o3…, o4… to openai, claude-… to anthropic.
func Canonical(name string) (string, error) {
	if strings.Contains(name, "/") {
		provider, model, err := SplitModel(name)
		if err != nil {
			return "", err
		}
		return provider + "/" + model, nil
	}
	if p := family(name); p != "" {
		return p + "/" + name, nil
	}
	return "", fmt.Errorf("model %q: want provider/model (e.g. openai/gpt-4.1-mini), or a bare name starting with gpt-, o1, o3, o4 or claude-", name)
}

// family is the provider of a bare model name, "" when the name says none.
func family(name string) string {
	switch {
	case strings.HasPrefix(name, "gpt-"), strings.HasPrefix(name, "chatgpt-"):
		return OpenAI
	case strings.HasPrefix(name, "claude-"):
		return Anthropic
	}
	for _, o := range []string{"o1", "o3", "o4"} {
		if name == o || strings.HasPrefix(name, o+"-") {
			return OpenAI
		}
	}
	return ""
}

// ModelInfo is what Parley needs to know of a model.
type ModelInfo struct {
	// ContextWindow is the prompt and the answer together, in tokens.
	ContextWindow int
	// MaxTokens is what one call asks for its answer: the model's output
	// limit, at most DefaultMaxTokens, unless configured. A thinking
	// budget comes on top.
	MaxTokens int
	// MaxOutput is the most a call may ask for, thinking included.
	MaxOutput int
	// Reasoning: the model takes a thinking budget or a reasoning effort.
	Reasoning bool
	// Known: the model is in the built-in table (or configured).
	Known bool
	// Price is what a call costs, when Priced (Models.Prices, or the list
	// price of a vendor's own API).
	Price  Price
	Priced bool
}

// Defaults for models the table does not know; DefaultMaxTokens also caps
// what a call asks of a model that could write more: chat answers are
// short, and a provider refuses a call whose prompt and output limit
// together exceed the window.
const (
	DefaultContextWindow = 128000
	DefaultMaxTokens     = 8192
	unknownMaxTokens     = 4096
)

// known lists models by name prefix: the longest prefix that ends at a
// "-" (or the end) of the name wins, so dated snapshots
// (claude-sonnet-4-5-20250929, gpt-4o-2024-08-06) find their family and
// gpt-4.5 does not pass for gpt-4.
var known = map[string]ModelInfo{
	"gpt-5":         {ContextWindow: 400000, MaxOutput: 128000, Reasoning: true},
	"gpt-4.1":       {ContextWindow: 1047576, MaxOutput: 32768},
	"gpt-4o":        {ContextWindow: 128000, MaxOutput: 16384},
	"gpt-4o-mini":   {ContextWindow: 128000, MaxOutput: 16384},
	"gpt-4-turbo":   {ContextWindow: 128000, MaxOutput: 4096},
	"gpt-4":         {ContextWindow: 8192, MaxOutput: 8192},
	"gpt-3.5-turbo": {ContextWindow: 16385, MaxOutput: 4096},
	"o1":            {ContextWindow: 200000, MaxOutput: 100000, Reasoning: true},
	"o1-mini":       {ContextWindow: 128000, MaxOutput: 65536, Reasoning: true},
	"o3":            {ContextWindow: 200000, MaxOutput: 100000, Reasoning: true},
	"o3-mini":       {ContextWindow: 200000, MaxOutput: 100000, Reasoning: true},
	"o4-mini":       {ContextWindow: 200000, MaxOutput: 100000, Reasoning: true},

	"claude-opus-4-5":   {ContextWindow: 200000, MaxOutput: 64000, Reasoning: true},
	"claude-opus-4-1":   {ContextWindow: 200000, MaxOutput: 32000, Reasoning: true},
	"claude-opus-4":     {ContextWindow: 200000, MaxOutput: 32000, Reasoning: true},
	"claude-sonnet-4-5": {ContextWindow: 200000, MaxOutput: 64000, Reasoning: true},
	"claude-sonnet-4":   {ContextWindow: 200000, MaxOutput: 64000, Reasoning: true},
	"claude-haiku-4-5":  {ContextWindow: 200000, MaxOutput: 64000, Reasoning: true},
	"claude-3-7-sonnet": {ContextWindow: 200000, MaxOutput: 64000, Reasoning: true},
	"claude-3-5-sonnet": {ContextWindow: 200000, MaxOutput: 8192},
	"claude-3-5-haiku":  {ContextWindow: 200000, MaxOutput: 8192},
	"claude-3-opus":     {ContextWindow: 200000, MaxOutput: 4096},
	"claude-3-haiku":    {ContextWindow: 200000, MaxOutput: 4096},
}

// Known returns the built-in table entry for a model name (with or without
// its provider), and whether there is one.
func Known(name string) (ModelInfo, bool) {
	info, found := byFamily(known, name)
	if !found {
		return ModelInfo{}, false
	}
	info.MaxTokens = min(info.MaxOutput, DefaultMaxTokens)
	info.Known = true
	return info, true
}

// byFamily looks a model name (with or without its provider) up in a
// table keyed by name prefix: the longest prefix that ends at a "-" (or
// the end) of the name wins.
func byFamily[V any](table map[string]V, name string) (V, bool) {
	// OpenRouter-style names carry a vendor ("openai/gpt-4o"): the table
	// knows the model by its last part.
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	best, found := "", false
	for prefix := range table {
		if len(prefix) <= len(best) || !strings.HasPrefix(name, prefix) {
			continue
		}
		if rest := name[len(prefix):]; rest == "" || rest[0] == '-' {
			best, found = prefix, true
		}
	}
	return table[best], found
}

// Limits overrides a model's window and answer size (llm.models, or
// llm.context_window and llm.max_tokens for every model); zero fields keep
// what the table says.
type Limits struct {
	ContextWindow int
	MaxTokens     int
}

// Models is the table of known models with the operator's overrides.
// The zero value is the built-in table alone.
type Models struct {
	// Overrides by model name: "provider/model", or the provider's own
	// name (gpt-4.1-mini, Qwen/Qwen2.5-7B-Instruct).
	Overrides map[string]Limits
	// Default applies to every model where Overrides say nothing, before
	// the table.
	Default Limits
	// Prices by "provider/model" (providers.<name>.prices).
	Prices map[string]Price
	// Listed names the providers that are the vendors' own APIs, whose
	// calls cost the list prices (ListPrice) unless Prices say otherwise.
	Listed map[string]bool
}

// Info returns what is known of the model named "provider/model".
func (m Models) Info(name string) ModelInfo {
	info, ok := Known(name)
	if !ok {
		info = ModelInfo{ContextWindow: DefaultContextWindow, MaxTokens: unknownMaxTokens, MaxOutput: unknownMaxTokens}
	}
	o, ok := m.Overrides[name]
	if !ok {
		if _, model, err := SplitModel(name); err == nil {
			o, ok = m.Overrides[model]
		}
	}
	if !ok {
		o = m.Default
	} else {
		info.Known = true
	}
	if o.ContextWindow > 0 {
		info.ContextWindow = o.ContextWindow
	}
	if o.MaxTokens > 0 {
		info.MaxTokens = o.MaxTokens
		info.MaxOutput = max(info.MaxOutput, o.MaxTokens)
	}
	info.Price, info.Priced = m.price(name)
	return info
}

// budget fits a call to the model: its answer size (the request's, else
// the model's) and its thinking budget (dropped when the model cannot
// think), together within MaxOutput. The budget gives way first: an
// answer cut short is worse than shorter thinking.
func (info ModelInfo) budget(req Request) Request {
	if req.MaxTokens <= 0 {
		req.MaxTokens = info.MaxTokens
	}
	req.MaxTokens = min(req.MaxTokens, info.MaxOutput)
	if !info.Reasoning || !req.Reasoning.On() {
		req.Reasoning = Reasoning{}
		return req
	}
	if req.Reasoning.Budget == 0 {
		return req // an effort alone: OpenAI counts it against MaxTokens
	}
	if room := info.MaxOutput - req.MaxTokens; req.Reasoning.Budget > room {
		req.Reasoning.Budget = room
	}
	if req.Reasoning.Budget < MinReasoningBudget {
		req.Reasoning = Reasoning{}
	}
	return req
}
