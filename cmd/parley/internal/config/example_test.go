package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/parleybot/parley/cmd/parley/internal/platforms"
	"github.com/spf13/viper"
)

// examplePath is config.example.yaml at the repository root, relative to
// this package's directory (where go test runs). Load resolves relative
// paths against the injected working directory, so callers pass it
// through filepath.Abs.
const examplePath = "../../../../config.example.yaml"

// tagKeys walks Config's mapstructure tags independently of leaves(), so
// a bug there cannot hide a key from the documentation test.
func tagKeys(t *testing.T) []string {
	t.Helper()
	var keys []string
	var walk func(reflect.Type, string)
	walk = func(typ reflect.Type, prefix string) {
		for f := range typ.Fields() {
			tag, ok := f.Tag.Lookup("mapstructure")
			if !ok {
				// An untagged field would be silently unconfigurable.
				t.Errorf("%s.%s has no mapstructure tag", typ.Name(), f.Name)
				continue
			}
			if tag == "-" {
				// The chat platforms' sections and allow lists, by name.
				for _, p := range platforms.All() {
					switch f.Type {
					case reflect.TypeFor[[]Platform]():
						walk(reflect.TypeOf(p.Settings()).Elem(), prefix+p.Name+".")
					case reflect.TypeFor[map[string]*AllowList]():
						walk(reflect.TypeFor[AllowList](), prefix+p.Name+".")
					}
				}
				continue
			}
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, prefix+tag+".")
				continue
			}
			keys = append(keys, prefix+tag)
		}
	}
	walk(reflect.TypeFor[Config](), "")
	return keys
}

func TestLeavesMatchTags(t *testing.T) {
	t.Parallel()
	var got []string
	for _, l := range leavesOf() {
		got = append(got, l.key)
	}
	if diff := cmp.Diff(tagKeys(t), got); diff != "" {
		t.Errorf("leaves() disagrees with the struct tags (-tags +leaves):\n%s", diff)
	}
}

func TestExampleDocumentsEveryKey(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, key := range tagKeys(t) {
		// Present as a real setting, not only in prose, so the file shows
		// where each key goes in the YAML tree.
		if !v.InConfig(key) {
			t.Errorf("config.example.yaml does not set %s", key)
		}
		if env := EnvVar(key); !strings.Contains(text, env) {
			t.Errorf("config.example.yaml does not mention %s (for %s)", env, key)
		}
	}
	for _, fb := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"} {
		if !strings.Contains(text, fb) {
			t.Errorf("config.example.yaml does not mention the %s fallback", fb)
		}
	}
	// The promised examples for OpenAI-compatible servers.
	for _, want := range []string{"http://localhost:11434/v1", "openai/llama3.2", "openrouter.ai", "vllm"} {
		if !strings.Contains(strings.ToLower(text), strings.ToLower(want)) {
			t.Errorf("config.example.yaml lacks the %q example", want)
		}
	}
	// Every key-setting line sits under a comment, so no key goes undocumented.
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasSuffix(trimmed, ":") {
			continue
		}
		if prev := strings.TrimSpace(lines[i-1]); !strings.HasPrefix(prev, "#") {
			t.Errorf("config.example.yaml:%d: %q has no comment above it", i+1, trimmed)
		}
	}
}

func TestExampleLoadsAsDefaults(t *testing.T) {
	t.Parallel()
	opts := hermetic(t, nil)
	var err error
	if opts.Path, err = filepath.Abs(examplePath); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(opts)
	if err != nil {
		t.Fatalf("Load(config.example.yaml): %v", err)
	}
	// The documented values must be the real defaults.
	want := defaults()
	want.File = cfg.File
	// "[]" in YAML and a nil default both mean no entries.
	if diff := cmp.Diff(&want, cfg, cmpopts.EquateEmpty(), samePlatform); diff != "" {
		t.Errorf("config.example.yaml disagrees with defaults() (-Default +example):\n%s", diff)
	}
}

// TestExampleOllama loads the commented Ollama example as an operator
// would after uncommenting it.
func TestExampleOllama(t *testing.T) {
	t.Parallel()
	cfg := mustLoadYAML(t, "llm:\n  model: openai/llama3.2\n  openai:\n    base_url: http://localhost:11434/v1\n", nil)
	if err := cfg.RequireLLM(); err != nil {
		t.Errorf("RequireLLM() = %v", err)
	}
}
