package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleybot/parley/cmd/parley/internal/platforms"
)

// FuzzLoad feeds arbitrary bytes to Load as the config file. Whatever the
// input, Load must return a config or an error, never panic, and a config
// it returns must be printable.
//
//	go test -fuzz=FuzzLoad ./cmd/parley/internal/config/
func FuzzLoad(f *testing.F) {
	// The example, a section a seed (maxFuzzInput).
	if example, err := os.ReadFile(examplePath); err == nil {
		for _, section := range sections(string(example)) {
			f.Add([]byte(section))
		}
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
		if len(data) > maxFuzzInput {
			return // see maxFuzzInput
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(LoadOptions{
			Path:        path,
			Platforms:   platforms.All(),
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

// maxFuzzInput bounds what FuzzLoad loads. A larger file reaches no part of
// the loader a smaller one does not, and each input that finds new
// coverage is minimized byte by byte, a load per try: minimizing a
// mutated 10 KB example took minutes in which fuzzing showed 0 execs/s.
const maxFuzzInput = 4 << 10

// sections splits a YAML file before each top-level key: each part is
// one key, what it holds, and the comments that follow it.
func sections(file string) []string {
	var out []string
	var cur strings.Builder
	for line := range strings.Lines(file) {
		if cur.Len() > 0 && line != "" && line[0] != ' ' && line[0] != '#' && line[0] != '\n' && strings.Contains(line, ":") {
			out = append(out, cur.String())
			cur.Reset()
		}
		cur.WriteString(line)
	}
	return append(out, cur.String())
}
