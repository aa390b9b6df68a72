// Package models names the language models the router can call.
package models

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ModelRef names one model: the provider, the model's name, and an optional
// version pin. Its string form is "provider/name@version".
type ModelRef struct {
	Provider string
	Name     string
	Version  string // "" means the provider's latest
}

// Known providers. A ref naming any other provider is rejected, so a typo
// in a workspace's configuration fails at load time instead of at the first
// request.
var knownProviders = map[string]bool{
	"anthropic": true,
	"openai":    true,
	"google":    true,
	"mistral":   true,
	"local":     true,
}

// ErrEmptyRef is returned by ParseModelRef for an empty or blank string.
var ErrEmptyRef = errors.New("models: empty model ref")

// maxRefLen bounds a ref's length; refs come from user-editable settings.
const maxRefLen = 200

// ParseModelRef parses "provider/name" or "provider/name@version".
//
// The provider is lowercased; the name and version keep their case. A
// version is either a date (2026-01 or 2026-01-15) or the word "latest",
// which is the same as no version. Whitespace around the ref is ignored.
//
//	ParseModelRef("anthropic/claude-sonnet@2026-01")
//	ParseModelRef("local/llama-3.1-8b")
func ParseModelRef(s string) (ModelRef, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return ModelRef{}, ErrEmptyRef
	}
	if len(s) > maxRefLen {
		return ModelRef{}, fmt.Errorf("models: ref longer than %d bytes", maxRefLen)
	}
	provider, rest, ok := strings.Cut(s, "/")
	if !ok || provider == "" || rest == "" {
		return ModelRef{}, fmt.Errorf("models: %q: want provider/name[@version]", s)
	}
	provider = strings.ToLower(provider)
	if !knownProviders[provider] {
		return ModelRef{}, fmt.Errorf("models: unknown provider %q", provider)
	}
	name, version, _ := strings.Cut(rest, "@")
	if name == "" || strings.ContainsAny(name, " /@") {
		return ModelRef{}, fmt.Errorf("models: %q: bad model name", s)
	}
	if version == "latest" {
		version = ""
	}
	if version != "" && !validVersion(version) {
		return ModelRef{}, fmt.Errorf("models: %q: version must be YYYY-MM, YYYY-MM-DD or latest", s)
	}
	return ModelRef{Provider: provider, Name: name, Version: version}, nil
}

// validVersion reports whether v is a date pin: YYYY-MM or YYYY-MM-DD.
func validVersion(v string) bool {
	for _, layout := range []string{"2006-01", "2006-01-02"} {
		if _, err := time.Parse(layout, v); err == nil {
			return true
		}
	}
	return false
}

// String is the ref's canonical form, the inverse of ParseModelRef.
func (r ModelRef) String() string {
	if r.Version == "" {
		return r.Provider + "/" + r.Name
	}
	return r.Provider + "/" + r.Name + "@" + r.Version
}

// Pinned reports whether the ref names a fixed version.
func (r ModelRef) Pinned() bool { return r.Version != "" }

// FallbackChain is the order in which the router tries models for a plan:
// the plan's primary model, then its fallback. The router moves to the next
// ref after two consecutive failures (timeouts or 5xx) within 30 seconds.
type FallbackChain []ModelRef

// DefaultChains maps a workspace plan to its chain. Enterprise workspaces can
// override their chain in the admin console; the others cannot.
func DefaultChains() map[string]FallbackChain {
	must := func(s string) ModelRef {
		r, err := ParseModelRef(s)
		if err != nil {
			panic(err)
		}
		return r
	}
	return map[string]FallbackChain{
		"free":       {must("mistral/mistral-small@2025-12"), must("local/llama-3.1-8b")},
		"team":       {must("anthropic/claude-haiku@2026-01"), must("openai/gpt-5-mini")},
		"enterprise": {must("anthropic/claude-sonnet@2026-01"), must("openai/gpt-5@2026-02")},
	}
}
