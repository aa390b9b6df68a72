package config

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/parleybot/parley/agent/llm"
)

// Chain is the models a turn may use: llm.model, then llm.fallback.
func (l *LLM) Chain() []string {
	if l.Model == "" {
		return nil
	}
	return append([]string{l.Model}, l.Fallback...)
}

// FallbackCooldown is llm.fallback_cooldown_seconds as a duration.
func (l *LLM) FallbackCooldown() time.Duration {
	return time.Duration(l.FallbackCooldownSeconds) * time.Second
}

// Reasoning is llm.thinking as the agent takes it; Load has checked it.
func (l *LLM) Reasoning() llm.Reasoning {
	r, _ := llm.ParseReasoning(l.Thinking)
	return r
}

// ModelTable is the table of known models with llm.models over it, and
// llm.context_window and llm.max_tokens for every model llm.models does
// not size.
func (l *LLM) ModelTable() llm.Models {
	m := llm.Models{Default: llm.Limits{ContextWindow: l.ContextWindow, MaxTokens: l.MaxTokens}}
	if len(l.Models) > 0 {
		m.Overrides = make(map[string]llm.Limits, len(l.Models))
		for name, lim := range l.Models {
			m.Overrides[name] = llm.Limits{ContextWindow: lim.ContextWindow, MaxTokens: lim.MaxTokens}
		}
	}
	return m
}

// normalize completes bare model names with their provider, so everything
// after Load sees "provider/model". A name that cannot be completed is
// left for validate to report.
func (l *LLM) normalize() {
	canonical := func(name string) string {
		if c, err := llm.Canonical(name); err == nil {
			return c
		}
		return name
	}
	if l.Model != "" {
		l.Model = canonical(l.Model)
	}
	for i, m := range l.Fallback {
		l.Fallback[i] = canonical(m)
	}
	for i, m := range l.Switchable {
		l.Switchable[i] = canonical(m)
	}
	l.Thinking = strings.ToLower(strings.TrimSpace(l.Thinking))
}

// validate checks the llm.* keys of the model chain, its sizes and its
// thinking; known says what is wrong with naming a provider
// (Config.providerProblem).
func (l *LLM) validate(known func(provider, name string) string) []string {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, quietArgs(args)...)) }
	if l.Model != "" {
		if problem := modelProblem(l.Model, known); problem != "" {
			add("llm.model: %s", problem)
		}
	}
	for i, m := range l.Fallback {
		switch {
		case modelProblem(m, known) != "":
			p = append(p, fmt.Sprintf("llm.fallback[%d]: %s", i, modelProblem(m, known)))
		case m == l.Model:
			add("llm.fallback[%d]: the same model as llm.model", i)
		case slices.Index(l.Fallback, m) < i:
			add("llm.fallback[%d]: the same model as llm.fallback[%d]", i, slices.Index(l.Fallback, m))
		}
	}
	if _, err := llm.ParseReasoning(l.Thinking); err != nil {
		add("llm.thinking: %s", err)
	}
	p = append(p, outOfRange(bound[int]{"llm.fallback_cooldown_seconds", l.FallbackCooldownSeconds, 1, 24 * 60 * 60})...)
	p = append(p, limitsProblems("llm", ModelLimits{ContextWindow: l.ContextWindow, MaxTokens: l.MaxTokens})...)
	names := make([]string, 0, len(l.Models))
	for name := range l.Models {
		names = append(names, name)
	}
	slices.Sort(names) // map order: keep messages stable
	for _, name := range names {
		if strings.TrimSpace(name) == "" {
			add("llm.models: a model without a name")
			continue
		}
		p = append(p, limitsProblems(fmt.Sprintf("llm.models.%s", name), l.Models[name])...)
	}
	return p
}

// modelProblem says what is wrong with a model name, "" when nothing is.
// The name is quieted: a key pasted into the wrong field is never shown.
func modelProblem(name string, known func(provider, name string) string) string {
	c, err := llm.Canonical(name)
	if err != nil {
		return fmt.Sprintf("%q must be provider/model (e.g. openai/gpt-4o-mini), or a bare name starting with gpt-, o1, o3, o4 or claude-", Quiet(name))
	}
	provider, _, _ := strings.Cut(c, "/")
	return known(provider, name)
}

// limitsProblems checks a window and an answer size, 0 meaning the table's.
func limitsProblems(key string, l ModelLimits) []string {
	var p []string
	if l.ContextWindow != 0 && l.ContextWindow < 1024 {
		p = append(p, fmt.Sprintf("%s.context_window: %d is too small; want at least 1024 tokens, or 0 for the table of known models", key, l.ContextWindow))
	}
	switch {
	case l.MaxTokens < 0:
		p = append(p, fmt.Sprintf("%s.max_tokens: %d is too small; want at least 1, or 0 for the table of known models", key, l.MaxTokens))
	case l.ContextWindow >= 1024 && l.MaxTokens >= l.ContextWindow:
		// The answer must fit in the window next to the prompt.
		p = append(p, fmt.Sprintf("%s.max_tokens: %d must be less than %s.context_window (%d)", key, l.MaxTokens, key, l.ContextWindow))
	}
	return p
}

// requireProvider reports whether the provider of model, named by key,
// is configured, and if not, what would fix it.
func (l *LLM) requireProvider(key, model string) error {
	provider, _, _ := strings.Cut(model, "/")
	switch provider {
	case ProviderOpenAI:
		if !l.Configured(provider) {
			return fmt.Errorf("%s is %q but OpenAI is not configured: set %s, or %s", key, model, openAIHint, localHint)
		}
	case ProviderAnthropic:
		if !l.Configured(provider) {
			return fmt.Errorf("%s is %q but Anthropic is not configured: set %s", key, model, anthropicHint)
		}
	default:
		return fmt.Errorf("%s: %q must be provider/model with provider openai or anthropic, e.g. %s", key, model, DefaultOpenAIModel)
	}
	return nil
}
