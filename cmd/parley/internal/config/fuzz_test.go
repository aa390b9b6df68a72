package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to Load as the config file. Whatever the
// input, Load must return a config or an error, never panic, and a config
// it returns must be printable.
//
//	go test -fuzz=FuzzLoad ./cmd/parley/internal/config/
func FuzzLoad(f *testing.F) {
	if example, err := os.ReadFile(examplePath); err == nil {
		f.Add(example)
	}
	for _, seed := range []string{
		"",
		"~",
		"- a\n",
		"data_dir: [a, {b: c}]\n",
		"llm: {context_window: 1e400, max_tokens: -1}\n",
		"slack: true\nslack.mode: http\n",
		"llm.openai: {base_url: 'http://x'}\nllm: {openai: 3}\n",
		"access: {admins: [[1], {a: b}, null]}\n",
		"a: &a [*a]\n",
		"? [a, b]\n: c\n",
		"1: 2\ntrue: false\n",
		"llm:\n  context_window: 9223372036854775808\n",
		"telegram: {enabled: yes, token: 12345}\n",
		"slack:\n\tmode: x\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(LoadOptions{
			Path:        path,
			Env:         func(string) (string, bool) { return "", false },
			Getwd:       func() (string, error) { return dir, nil },
			UserHomeDir: func() (string, error) { return dir, nil },
		})
		if (cfg == nil) == (err == nil) {
			t.Fatalf("Load = %v, %v; want exactly one of config and error", cfg, err)
		}
		if cfg != nil {
			_ = cfg.Redacted()
			_ = cfg.RequireLLM()
			_ = cfg.EnabledPlatforms()
		}
	})
}
