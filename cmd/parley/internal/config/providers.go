package config

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/viper"

	"github.com/parleybot/parley/agent/llm"

	"github.com/parleybot/parley/internal/lazyre"
	"github.com/parleybot/parley/internal/secret"
)

// Named model servers (providers.<name>, docs/models.md#model-servers): a
// model is "name/model", and name is one of them, or openai / anthropic,
// the providers llm.openai.* and llm.anthropic.* configure as before.

// The kinds of model server: the wire protocol each speaks.
const (
	KindOpenAI    = "openai"    // Chat Completions: OpenAI, Ollama, vLLM, OpenRouter, …
	KindAnthropic = "anthropic" // the Messages API
)

// providersKey is the key of the map of named model servers.
const providersKey = "providers"

// Providers are the named model servers, by name. In the file a mapping of
// names to mappings; in the environment (PARLEY_PROVIDERS) the same as JSON.
type Providers map[string]ProviderSettings

// ProviderSettings is one model server (providers.<name>).
type ProviderSettings struct {
	// Kind is the protocol: KindOpenAI or KindAnthropic. Required.
	Kind string `mapstructure:"kind" json:"kind"`
	// BaseURL is the server's endpoint; "" is the kind's public API.
	BaseURL string `mapstructure:"base_url" json:"base_url"`
	// At most one of APIKey (the key itself), APIKeyEnv (the name of an
	// environment variable holding it) and APIKeyFile (a file holding it,
	// readable by its owner alone); none sends no key (a local server).
	APIKey     secret.Secret `mapstructure:"api_key" json:"api_key"`
	APIKeyEnv  string        `mapstructure:"api_key_env" json:"api_key_env"`
	APIKeyFile string        `mapstructure:"api_key_file" json:"api_key_file"`
	// Headers go with every request; their values are secrets.
	Headers map[string]secret.Secret `mapstructure:"headers" json:"headers"`
	// Timeout bounds each request, its streamed answer included; 0 none
	// beyond the turn's own.
	Timeout time.Duration `mapstructure:"timeout" json:"timeout"`
	// Prices are what its models cost, by the server's model name
	// (prices.go).
	Prices map[string]llm.Price `mapstructure:"prices" json:"prices"`

	// Key is the key in effect, which Load read from whichever source is
	// set; "" sends none. Not a key of the file.
	Key secret.Secret `mapstructure:"-" json:"-"`
}

// providerFields are the keys of one provider, for "did you mean".
var providerFields = []string{"kind", "base_url", "api_key", "api_key_env", "api_key_file", "headers", "timeout", "prices"}

var (
	providerName = lazyre.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)
	envName      = lazyre.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	headerName   = lazyre.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
)

// keyProblems are problems found while decoding a value, each starting
// with its full key; decode reports them as they are.
type keyProblems []string

func (k keyProblems) Error() string { return strings.Join(k, "; ") }

// UnmarshalJSON decodes the providers key by key, so that each mistake is
// reported under its own key and a misspelt one with the key meant.
func (p *Providers) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	out := make(Providers, len(raw))
	var problems keyProblems
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		key := providersKey + "." + name
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw[name], &fields); err != nil || fields == nil {
			problems = append(problems, fmt.Sprintf("%s: want a mapping of keys (kind, base_url, …), got %s", shownKey(key), jsonShape(raw[name])))
			continue
		}
		var s ProviderSettings
		for _, f := range slices.Sorted(maps.Keys(fields)) {
			if err := s.set(f, fields[f]); err != nil {
				problems = append(problems, fmt.Sprintf("%s.%s: %v", shownKey(key), shownKey(f), err))
			}
		}
		out[name] = s
	}
	*p = out
	if len(problems) > 0 {
		return problems
	}
	return nil
}

// set decodes one key of a provider; JSON null leaves it unset.
func (s *ProviderSettings) set(field string, raw json.RawMessage) error {
	if string(raw) == "null" {
		return nil
	}
	text := func(dst *string) error {
		v, err := jsonScalar(raw)
		*dst = v
		return err
	}
	switch field {
	case "kind":
		return text(&s.Kind)
	case "base_url":
		return text(&s.BaseURL)
	case "api_key":
		var v string
		err := text(&v)
		s.APIKey = secret.Secret(v)
		return err
	case "api_key_env":
		return text(&s.APIKeyEnv)
	case "api_key_file":
		return text(&s.APIKeyFile)
	case "headers":
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("want a mapping of header names to values, got %s", jsonShape(raw))
		}
		s.Headers = make(map[string]secret.Secret, len(m))
		for name, v := range m {
			value, err := jsonScalar(v)
			if err != nil {
				return fmt.Errorf("%s: %w", shownKey(name), err)
			}
			s.Headers[name] = secret.Secret(value)
		}
		return nil
	case "timeout":
		return s.setTimeout(raw)
	case "prices":
		return s.setPrices(raw)
	}
	if near, ok := nearest(field, providerFields); ok {
		return fmt.Errorf("unknown key; did you mean %s? (config.example.yaml lists every key)", near)
	}
	return fmt.Errorf("unknown key; want %s", orList(providerFields, "or"))
}

// setTimeout reads a duration with its unit ("60s", "2m"); 0 alone may
// go without.
func (s *ProviderSettings) setTimeout(raw json.RawMessage) error {
	const want = "want a duration such as 60s or 2m, or 0 for none"
	v, err := jsonScalar(raw)
	if err != nil {
		return fmt.Errorf("%s, got %s", want, jsonShape(raw))
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil && strings.Trim(v, "0123456789.") == "":
		return fmt.Errorf("%s has no unit; %s", shown(v), want)
	case err != nil:
		return fmt.Errorf("%s is not a duration; %s", shown(v), want)
	case d < 0:
		return fmt.Errorf("%s is negative; %s", v, want)
	}
	s.Timeout = d
	return nil
}

// jsonScalar is a JSON string, number or boolean as text: an unquoted
// "api_key: 12345" is a number to YAML but meant as text.
func jsonScalar(raw json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x), nil
	case float64, bool:
		return strings.TrimSpace(string(raw)), nil
	}
	return "", fmt.Errorf("want a string, got %s", jsonShape(raw))
}

// jsonShape names a JSON value's shape for messages, never its content.
func jsonShape(raw json.RawMessage) string {
	switch t := strings.TrimSpace(string(raw)); {
	case strings.HasPrefix(t, "{"):
		return "a mapping"
	case strings.HasPrefix(t, "["):
		return "a list"
	}
	return "a single value"
}

// legacyProviderKeys lists, by legacy provider, the keys of llm.<name>.*
// set in the file or by PARLEY_* variables: OPENAI_API_KEY and
// ANTHROPIC_API_KEY, the fallbacks, do not count.
func legacyProviderKeys(v *viper.Viper, env func(string) (string, bool)) map[string][]string {
	out := map[string][]string{}
	for _, name := range []string{ProviderOpenAI, ProviderAnthropic} {
		for _, k := range []string{"api_key", "base_url"} {
			key := "llm." + name + "." + k
			if raw, from := lookup(key, v, env); raw != nil && (from == "" || from != fallbackEnv(key)) {
				out[name] = append(out[name], key)
			}
		}
	}
	return out
}

// loadProviders checks each named provider and reads its key from its
// source. providers.openai and providers.anthropic take the place of
// llm.openai.* and llm.anthropic.*, which then must not be set (legacy
// lists those that are, legacyProviderKeys); without a key source of its
// own, such a provider takes OPENAI_API_KEY / ANTHROPIC_API_KEY as the old
// keys did.
func (c *Config) loadProviders(env func(string) (string, bool), legacy map[string][]string) []string {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, quietArgs(args)...)) }
	for _, name := range slices.Sorted(maps.Keys(c.Providers)) {
		s := c.Providers[name]
		key := shownKey(providersKey + "." + name)
		if !providerName().MatchString(name) {
			add("%s: %q is not a valid provider name; want a lower-case letter, then up to 31 lower-case letters, digits, _ or -", providersKey, name)
		}
		switch s.Kind {
		case KindOpenAI, KindAnthropic:
			if (name == ProviderOpenAI || name == ProviderAnthropic) && s.Kind != name {
				add("%s.kind: %s names the provider of the bare %s model names; want kind %s, or another name", key, name, name, name)
			}
		case "":
			add("%s.kind: required; want openai (OpenAI and compatible servers: Ollama, vLLM, OpenRouter, …) or anthropic", key)
		default:
			add("%s.kind: %q is not valid; want openai or anthropic", key, s.Kind)
		}
		if s.BaseURL != "" && !isHTTPURL(s.BaseURL) {
			add("%s.base_url: %q is not a valid URL; want http(s)://host[:port][/path]", key, s.BaseURL)
		}
		if set := legacy[name]; len(set) > 0 {
			add("%s: set while %s is too; the provider %s is configured by one or the other, not both: keep one", key, strings.Join(set, " and "), name)
		}
		seen := map[string]bool{}
		for _, h := range slices.Sorted(maps.Keys(s.Headers)) {
			switch v := s.Headers[h].Reveal(); {
			case !headerName().MatchString(h):
				add("%s.headers: %q is not a valid header name", key, h)
			case seen[strings.ToLower(h)]:
				add("%s.headers: %q is set twice (header names are case-insensitive)", key, h)
			case strings.ContainsAny(v, "\r\n\x00"):
				add("%s.headers.%s: the value holds a line break", key, h)
			}
			seen[strings.ToLower(h)] = true
		}
		p = append(p, c.providerKey(name, &s, env)...)
		c.Providers[name] = s
	}
	if _, ok := c.Providers[ProviderOpenAI]; ok {
		c.LLM.OpenAI = Provider{}
	}
	if _, ok := c.Providers[ProviderAnthropic]; ok {
		c.LLM.Anthropic = Provider{}
	}
	return p
}

// providerKey reads s's key from the one source set into s.Key.
func (c *Config) providerKey(name string, s *ProviderSettings, env func(string) (string, bool)) []string {
	key := shownKey(providersKey + "." + name)
	var sources []string
	for _, src := range []struct {
		key string
		set bool
	}{{"api_key", s.APIKey != ""}, {"api_key_env", s.APIKeyEnv != ""}, {"api_key_file", s.APIKeyFile != ""}} {
		if src.set {
			sources = append(sources, src.key)
		}
	}
	switch {
	case len(sources) > 1:
		return []string{fmt.Sprintf("%s: %s are all set; want one source of the key, or none", key, orList(sources, "and"))}
	case s.APIKey != "":
		s.Key = s.APIKey
	case s.APIKeyEnv != "":
		v, ok := env(s.APIKeyEnv)
		switch {
		case !envName().MatchString(s.APIKeyEnv):
			return []string{fmt.Sprintf("%s.api_key_env: %s is not the name of an environment variable; want the variable's name (letters, digits, _), not the key", key, shown(s.APIKeyEnv))}
		case !ok || strings.TrimSpace(v) == "":
			return []string{fmt.Sprintf("%s.api_key_env: the environment variable %s is not set", key, s.APIKeyEnv)}
		}
		s.Key = secret.Secret(strings.TrimSpace(v))
	case s.APIKeyFile != "":
		k, err := readKeyFile(s.APIKeyFile)
		if err != nil {
			return []string{fmt.Sprintf("%s.api_key_file: %v", key, err)}
		}
		s.Key = secret.Secret(k)
	case name == ProviderOpenAI:
		s.Key = c.LLM.OpenAI.APIKey // from OPENAI_API_KEY, if set
	case name == ProviderAnthropic:
		s.Key = c.LLM.Anthropic.APIKey // from ANTHROPIC_API_KEY, if set
	}
	return nil
}

// readKeyFile reads a key from a file that its owner alone may read or
// write, as ssh asks of a private key: anyone else who can read it has the
// key.
func readKeyFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("%s is open to other users (mode %04o), so Parley will not use the key in it, as ssh refuses such a private key; "+
			"run chmod 600 %s", path, perm, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return "", err
	}
	k := strings.TrimSpace(string(data))
	switch {
	case k == "":
		return "", fmt.Errorf("%s is empty", path)
	case strings.ContainsAny(k, "\r\n"):
		return "", fmt.Errorf("%s holds more than one line; want the key alone", path)
	}
	return k, nil
}

// Endpoint returns the model server a model's provider name names: a
// named provider, or llm.openai / llm.anthropic as the providers openai
// and anthropic when configured there. ok is false when none is.
func (c *Config) Endpoint(name string) (s ProviderSettings, ok bool) {
	if s, ok := c.Providers[name]; ok {
		return s, true
	}
	var p Provider
	switch name {
	case ProviderOpenAI:
		p = c.LLM.OpenAI
	case ProviderAnthropic:
		p = c.LLM.Anthropic
	}
	if !c.LLM.Configured(name) {
		return ProviderSettings{}, false
	}
	return ProviderSettings{Kind: name, BaseURL: p.BaseURL, APIKey: p.APIKey, Key: p.APIKey}, true
}

// ProviderNames lists the configured providers, sorted: the named ones,
// and openai and anthropic when llm.openai / llm.anthropic configure them.
func (c *Config) ProviderNames() []string {
	names := slices.Collect(maps.Keys(c.Providers))
	for _, legacy := range []string{ProviderOpenAI, ProviderAnthropic} {
		if _, ok := c.Endpoint(legacy); ok && !slices.Contains(names, legacy) {
			names = append(names, legacy)
		}
	}
	slices.Sort(names)
	return names
}

// KeySource says where s's key came from, for doctor: "$VAR", a file's
// path, or "" (the file's own key, or none).
func (s ProviderSettings) KeySource() string {
	switch {
	case s.APIKeyEnv != "":
		return "$" + s.APIKeyEnv
	case s.APIKeyFile != "":
		return s.APIKeyFile
	}
	return ""
}

// providerKind is the kind of the provider a model names: a named
// provider's, the legacy names' own, "" for a name that is neither.
func (c *Config) providerKind(provider string) string {
	if s, ok := c.Providers[provider]; ok {
		return s.Kind
	}
	if provider == ProviderOpenAI || provider == ProviderAnthropic {
		return provider
	}
	return ""
}

// providerProblem says what is wrong with provider, the provider of the
// model name, "" when it may be named: a named provider, or openai or
// anthropic (whether their keys are set is RequireLLM's to say, when a
// model is about to be called).
func (c *Config) providerProblem(provider, name string) string {
	if c.providerKind(provider) != "" {
		return ""
	}
	known := slices.Collect(maps.Keys(c.Providers))
	for _, legacy := range []string{ProviderOpenAI, ProviderAnthropic} {
		if !slices.Contains(known, legacy) {
			known = append(known, legacy)
		}
	}
	slices.Sort(known)
	return fmt.Sprintf("provider %q in %q is not configured; the providers are %s (providers.<name> defines one)",
		Quiet(provider), Quiet(name), orList(known, "and"))
}

// requireProvider reports whether the provider of model, named by key, is
// configured, and if not, what would fix it.
func (c *Config) requireProvider(key, model string) error {
	provider, _, _ := strings.Cut(model, "/")
	if _, ok := c.Providers[provider]; ok {
		return nil
	}
	return c.LLM.requireProvider(key, model)
}

// configured reports whether the named provider can be called.
func (c *Config) configured(name string) bool {
	_, ok := c.Endpoint(name)
	return ok
}
