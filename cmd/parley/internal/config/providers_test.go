package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/internal/secret"
)

// Secrets of the tests below: none may ever be printed.
const (
	hostedKey   = "sk-hosted-0123456789abcdefXYZ1"
	fileKey     = "sk-ant-file-0123456789abcdefXYZ2"
	headerValue = "gw-token-0123456789abcdefXYZ3"
)

// keyFile writes key into a file of the given mode and returns its path.
func keyFile(t *testing.T, key string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(path, []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// threeServers is docs/models.md's worked example: hosted OpenAI, a local
// Ollama, Anthropic.
func threeServers(t *testing.T) string {
	return fmt.Sprintf(`llm:
  model: hosted/gpt-4.1-mini
  fallback: [local/llama3.2]
memory:
  guard_model: claude/claude-haiku-4-5
kb:
  embedding_model: local/nomic-embed-text
providers:
  hosted:
    kind: openai
    api_key_env: HOSTED_KEY
    timeout: 90s
    headers: {X-Gateway-Team: %s}
  local:
    kind: openai
    base_url: http://localhost:11434/v1
    timeout: 0
  claude:
    kind: anthropic
    api_key_file: %s
`, headerValue, keyFile(t, fileKey+"\n", 0o600))
}

func TestProvidersLoad(t *testing.T) {
	t.Parallel()
	t.Run("three servers", func(t *testing.T) {
		t.Parallel()
		cfg := mustLoadYAML(t, threeServers(t), map[string]string{"HOSTED_KEY": hostedKey})
		if got, want := cfg.ProviderNames(), []string{"claude", "hosted", "local"}; !slices.Equal(got, want) {
			t.Errorf("ProviderNames() = %v, want %v", got, want)
		}
		want := map[string]ProviderSettings{
			"hosted": {Kind: KindOpenAI, APIKeyEnv: "HOSTED_KEY", Timeout: 90 * time.Second,
				Headers: map[string]secret.Secret{"X-Gateway-Team": headerValue}, Key: hostedKey},
			"local":  {Kind: KindOpenAI, BaseURL: "http://localhost:11434/v1"},
			"claude": {Kind: KindAnthropic, APIKeyFile: cfg.Providers["claude"].APIKeyFile, Key: fileKey},
		}
		for name, w := range want {
			got, ok := cfg.Endpoint(name)
			if diff := cmp.Diff(w, got); !ok || diff != "" {
				t.Errorf("Endpoint(%s) (-want +got):\n%s", name, diff)
			}
		}
		if _, ok := cfg.Endpoint(ProviderOpenAI); ok {
			t.Error("openai is configured without any key or URL")
		}
		if err := cfg.RequireLLM(); err != nil {
			t.Errorf("RequireLLM: %v", err)
		}
		if got := cfg.Providers["claude"].KeySource(); !strings.HasSuffix(got, "key") {
			t.Errorf("claude's key source %q", got)
		}
	})
	t.Run("from the environment as JSON", func(t *testing.T) {
		t.Parallel()
		cfg := mustLoadYAML(t, "", map[string]string{
			"PARLEY_PROVIDERS": `{"local": {"kind": "openai", "base_url": "http://ollama:11434/v1", "headers": {"X-A": "b"}}}`,
			"PARLEY_LLM_MODEL": "local/llama3.2",
			// Reflection on a model of another provider, by its bare name.
			"PARLEY_EVOLUTION_MODEL": "gpt-4.1-mini",
			"OPENAI_API_KEY":         "sk-test",
		})
		if got := cfg.Evolution.Model; got != "openai/gpt-4.1-mini" {
			t.Errorf("evolution.model = %q, want openai/gpt-4.1-mini", got)
		}
		if s, ok := cfg.Endpoint("local"); !ok || s.BaseURL != "http://ollama:11434/v1" || s.Headers["X-A"] != "b" || s.Key != "" {
			t.Errorf("Endpoint(local) = %+v, %v", s, ok)
		}
	})
	t.Run("legacy and named side by side", func(t *testing.T) {
		t.Parallel()
		cfg := mustLoadYAML(t, "llm:\n  fallback: [local/llama3.2]\nproviders:\n  local: {kind: openai, base_url: 'http://localhost:11434/v1'}\n",
			map[string]string{"OPENAI_API_KEY": hostedKey})
		if cfg.LLM.Model != DefaultOpenAIModel || !slices.Equal(cfg.ProviderNames(), []string{"local", "openai"}) {
			t.Errorf("model %q, providers %v", cfg.LLM.Model, cfg.ProviderNames())
		}
		if s, _ := cfg.Endpoint(ProviderOpenAI); s.Kind != KindOpenAI || s.Key != hostedKey {
			t.Errorf("Endpoint(openai) = %+v", s)
		}
		if err := cfg.RequireLLM(); err != nil {
			t.Errorf("RequireLLM: %v", err)
		}
	})
	t.Run("providers.openai in place of llm.openai", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			name, yaml string
			env        map[string]string
			key        secret.Secret
		}{
			{"OPENAI_API_KEY as before", "providers:\n  openai: {kind: openai, timeout: 30s}\n", map[string]string{"OPENAI_API_KEY": hostedKey}, hostedKey},
			{"a key source of its own", "providers:\n  openai: {kind: openai, api_key_env: MY_KEY}\n", map[string]string{"OPENAI_API_KEY": "sk-other-0123456789", "MY_KEY": hostedKey}, hostedKey},
			{"no key (a local server)", "providers:\n  openai: {kind: openai, base_url: 'http://localhost:8000/v1'}\n", nil, ""},
		} {
			cfg := mustLoadYAML(t, tc.yaml, tc.env)
			s, ok := cfg.Endpoint(ProviderOpenAI)
			if !ok || s.Key != tc.key || cfg.LLM.Model != DefaultOpenAIModel || cfg.LLM.OpenAI != (Provider{}) {
				t.Errorf("%s: Endpoint(openai) = %+v, %v; model %q; llm.openai %+v", tc.name, s, ok, cfg.LLM.Model, cfg.LLM.OpenAI)
			}
		}
	})
	t.Run("no model among several servers", func(t *testing.T) {
		t.Parallel()
		cfg := mustLoadYAML(t, "providers:\n  local: {kind: openai, base_url: 'http://localhost:11434/v1'}\n", nil)
		want := "llm.model is not set: name a model of the provider local, e.g. local/<model> (PARLEY_LLM_MODEL)"
		if err := cfg.RequireLLM(); err == nil || err.Error() != want {
			t.Errorf("RequireLLM = %v, want %q", err, want)
		}
	})
}

// TestProvidersValidation: each mistake is reported under its key, the
// key itself never quoted.
func TestProvidersValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		env  map[string]string
		want []string // the exact problems, in order
	}{
		{"unknown kind", "providers:\n  local: {kind: ollama}\n", nil,
			[]string{`providers.local.kind: "ollama" is not valid; want openai or anthropic`}},
		{"no kind", "providers:\n  local: {base_url: 'http://localhost:11434/v1'}\n", nil,
			[]string{`providers.local.kind: required; want openai (OpenAI and compatible servers: Ollama, vLLM, OpenRouter, …) or anthropic`}},
		{"bad names", "providers:\n  Local: {kind: openai}\n  9x: {kind: openai}\n  " + strings.Repeat("a", 33) + ": {kind: openai}\n", nil, []string{
			`providers: "9x" is not a valid provider name; want a lower-case letter, then up to 31 lower-case letters, digits, _ or -`,
			`providers: "Local" is not a valid provider name; want a lower-case letter, then up to 31 lower-case letters, digits, _ or -`,
			`providers: "` + strings.Repeat("a", 33) + `" is not a valid provider name; want a lower-case letter, then up to 31 lower-case letters, digits, _ or -`,
		}},
		{"bad URL", "providers:\n  local: {kind: openai, base_url: 'localhost:11434/v1'}\n", nil,
			[]string{`providers.local.base_url: "localhost:11434/v1" is not a valid URL; want http(s)://host[:port][/path]`}},
		{"two key sources", "providers:\n  hosted: {kind: openai, api_key: " + hostedKey + ", api_key_env: HOSTED_KEY}\n", map[string]string{"HOSTED_KEY": "x"},
			[]string{`providers.hosted: api_key and api_key_env are all set; want one source of the key, or none`}},
		{"three key sources", "providers:\n  hosted: {kind: openai, api_key: x, api_key_env: HOSTED_KEY, api_key_file: /k}\n", nil,
			[]string{`providers.hosted: api_key, api_key_env and api_key_file are all set; want one source of the key, or none`}},
		{"missing variable", "providers:\n  hosted: {kind: openai, api_key_env: HOSTED_KEY}\n", map[string]string{"HOSTED_KEY": " "},
			[]string{`providers.hosted.api_key_env: the environment variable HOSTED_KEY is not set`}},
		{"the key where its variable's name goes", "providers:\n  hosted: {kind: openai, api_key_env: " + hostedKey + "}\n", nil,
			[]string{`providers.hosted.api_key_env: (a value that looks like a secret; not shown) is not the name of an environment variable; want the variable's name (letters, digits, _), not the key`}},
		{"missing file", "providers:\n  claude: {kind: anthropic, api_key_file: /nonexistent/key}\n", nil,
			[]string{`providers.claude.api_key_file: open /nonexistent/key: no such file or directory`}},
		{"typo", "providers:\n  local: {kind: openai, bas_url: 'http://h/v1', tiemout: 5s}\n", nil, []string{
			`providers.local.bas_url: unknown key; did you mean base_url? (config.example.yaml lists every key)`,
			`providers.local.tiemout: unknown key; did you mean timeout? (config.example.yaml lists every key)`,
		}},
		{"far from any key", "providers:\n  local: {kind: openai, model: llama3.2}\n", nil,
			[]string{`providers.local.model: unknown key; want kind, base_url, api_key, api_key_env, api_key_file, headers, timeout or prices`}},
		{"typo, from the environment", "", map[string]string{"PARLEY_PROVIDERS": `{"local": {"kind": "openai", "headrs": {}}}`},
			[]string{`providers.local.headrs: unknown key; did you mean headers? (config.example.yaml lists every key) (from PARLEY_PROVIDERS)`}},
		{"not a mapping", "providers:\n  local: openai\n", nil,
			[]string{`providers.local: want a mapping of keys (kind, base_url, …), got a single value`}},
		{"timeouts", "providers:\n  a: {kind: openai, timeout: 60}\n  b: {kind: openai, timeout: -5s}\n  c: {kind: openai, timeout: soon}\n", nil, []string{
			`providers.a.timeout: "60" has no unit; want a duration such as 60s or 2m, or 0 for none`,
			`providers.b.timeout: -5s is negative; want a duration such as 60s or 2m, or 0 for none`,
			`providers.c.timeout: "soon" is not a duration; want a duration such as 60s or 2m, or 0 for none`,
		}},
		{"headers", "providers:\n  gw: {kind: openai, headers: {'X Team': a, x-a: b, X-A: c}}\n", nil, []string{
			`providers.gw.headers: "X Team" is not a valid header name`,
			`providers.gw.headers: "x-a" is set twice (header names are case-insensitive)`,
		}},
		{"openai of another kind", "providers:\n  openai: {kind: anthropic}\n", nil,
			[]string{`providers.openai.kind: openai names the provider of the bare openai model names; want kind openai, or another name`}},
		{"providers.openai and llm.openai", "llm:\n  openai:\n    base_url: http://localhost:8000/v1\nproviders:\n  openai: {kind: openai}\n", nil,
			[]string{`providers.openai: set while llm.openai.base_url is too; the provider openai is configured by one or the other, not both: keep one`}},
		{"providers.anthropic and PARLEY_LLM_ANTHROPIC_API_KEY", "providers:\n  anthropic: {kind: anthropic, api_key_env: K}\n",
			map[string]string{"K": "k", "PARLEY_LLM_ANTHROPIC_API_KEY": "k2"},
			[]string{`providers.anthropic: set while llm.anthropic.api_key is too; the provider anthropic is configured by one or the other, not both: keep one`}},
		{"models of unknown providers", "llm:\n  model: locl/llama3.2\n  fallback: [hosted/gpt-4.1-mini, claude/claude-haiku-4-5]\nmemory:\n  guard_model: judge/llama3.2\nkb:\n  embedding_model: embed/nomic\n" +
			"evolution:\n  model: think/qwen3\nproviders:\n  hosted: {kind: openai}\n", nil, []string{
			`memory.guard_model: provider "judge" in "judge/llama3.2" is not configured; the providers are anthropic, hosted and openai (providers.<name> defines one)`,
			`evolution.model: provider "think" in "think/qwen3" is not configured; the providers are anthropic, hosted and openai (providers.<name> defines one)`,
			`llm.model: provider "locl" in "locl/llama3.2" is not configured; the providers are anthropic, hosted and openai (providers.<name> defines one)`,
			`llm.fallback[1]: provider "claude" in "claude/claude-haiku-4-5" is not configured; the providers are anthropic, hosted and openai (providers.<name> defines one)`,
			`kb.embedding_model: provider "embed" in "embed/nomic" is not configured; the providers are anthropic, hosted and openai (providers.<name> defines one)`,
		}},
		{"a reflection model that is no provider/model", "evolution:\n  model: llama3.2\n", nil,
			[]string{`evolution.model: "llama3.2" must be provider/model (e.g. openai/gpt-4o-mini), or a bare name starting with gpt-, o1, o3, o4 or claude-`}},
		{"embeddings from an anthropic provider", "kb:\n  embedding_model: claude/voyage-3\nproviders:\n  claude: {kind: anthropic}\n", nil,
			[]string{`kb.embedding_model: the provider claude is of kind anthropic, which has no embeddings endpoint; use a provider of kind openai (OpenAI, or a compatible server such as Ollama)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := loadYAML(t, tt.yaml, tt.env)
			ve, ok := err.(*ValidationError)
			if !ok {
				t.Fatalf("Load error = %v (%T), want *ValidationError", err, err)
			}
			if diff := cmp.Diff(tt.want, ve.Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if strings.Contains(err.Error(), hostedKey) {
				t.Errorf("a key was printed: %v", err)
			}
		})
	}
}

// TestProviderKeyFile: a key file open to other users is refused, as ssh
// refuses such a private key; one of its owner's alone is read.
func TestProviderKeyFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		mode    os.FileMode
		want    string // a problem's end, "" for none
	}{
		{"owner only", fileKey + "\n", 0o600, ""},
		{"read-only for its owner", fileKey, 0o400, ""},
		{"readable by all", fileKey, 0o644, "is open to other users (mode 0644), so Parley will not use the key in it, as ssh refuses such a private key; run chmod 600 "},
		{"readable by the group", fileKey, 0o640, "is open to other users (mode 0640)"},
		{"empty", "\n", 0o600, "is empty"},
		{"two lines", fileKey + "\nmore\n", 0o600, "holds more than one line; want the key alone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := keyFile(t, tt.content, tt.mode)
			cfg, err := loadYAML(t, "providers:\n  claude: {kind: anthropic, api_key_file: "+path+"}\n", nil)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if s, _ := cfg.Endpoint("claude"); s.Key != fileKey {
					t.Errorf("key %q, want the file's", s.Key.Reveal())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "providers.claude.api_key_file: "+path+" ") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want providers.claude.api_key_file: %s … %s", err, path, tt.want)
			}
			if strings.Contains(err.Error(), fileKey) {
				t.Errorf("the key was printed: %v", err)
			}
		})
	}
}

// TestProvidersMasked: neither a provider's key nor a header's value is
// shown wherever the configuration is, and doctor's scrubber knows them.
func TestProvidersMasked(t *testing.T) {
	t.Parallel()
	cfg := mustLoadYAML(t, threeServers(t)+"  inline:\n    kind: openai\n    api_key: "+hostedKey+"\n", map[string]string{"HOSTED_KEY": hostedKey})
	for _, out := range []string{cfg.Redacted(), fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg.Providers), fmt.Sprint(cfg.Endpoint("hosted"))} {
		for _, s := range []string{hostedKey, fileKey, headerValue} {
			if strings.Contains(out, s) {
				t.Errorf("%s was printed:\n%s", s, out)
			}
		}
	}
	if !strings.Contains(cfg.Redacted(), "providers: map[") {
		t.Errorf("Redacted() does not show the providers:\n%s", cfg.Redacted())
	}
	for _, s := range []string{hostedKey, fileKey, headerValue} {
		if !slices.Contains(cfg.SecretValues(), s) {
			t.Errorf("SecretValues() lacks a provider's secret")
		}
	}
}

// TestProvidersDocExample loads docs/models.md's worked example as an
// operator would, with its key file in place.
func TestProvidersDocExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../../../docs/models.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(doc), "## Model servers")
	_, rest, _ = strings.Cut(rest, "```yaml\n")
	example, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("docs/models.md has no YAML example under ## Model servers")
	}
	example = strings.ReplaceAll(example, "/etc/parley/anthropic.key", keyFile(t, fileKey, 0o600))
	cfg := mustLoadYAML(t, example, map[string]string{"OPENAI_API_KEY": hostedKey})
	if err := cfg.RequireLLM(); err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.ProviderNames(), []string{"claude", "local", "openai"}; !slices.Equal(got, want) {
		t.Errorf("ProviderNames() = %v, want %v", got, want)
	}
	if s, _ := cfg.Endpoint(ProviderOpenAI); s.Key != hostedKey {
		t.Error("providers.openai did not take OPENAI_API_KEY")
	}
}
