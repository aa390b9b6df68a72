package config

import (
	"path/filepath"
	"testing"
)

// BenchmarkLoadExample is Load of config.example.yaml: every key, every
// platform's section, validation. FuzzLoad runs it for each input.
func BenchmarkLoadExample(b *testing.B) {
	path, err := filepath.Abs(examplePath)
	if err != nil {
		b.Fatal(err)
	}
	opts := hermetic(b, nil)
	opts.Path = path
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadEnv is Load with no file, configured by the environment
// alone, as a container (and cmd/parley-load) runs Parley.
func BenchmarkLoadEnv(b *testing.B) {
	opts := hermetic(b, map[string]string{
		"PARLEY_TELEGRAM_ENABLED":            "true",
		"PARLEY_TELEGRAM_TOKEN":              "123:abc",
		"PARLEY_TELEGRAM_API_URL":            "http://127.0.0.1:1",
		"PARLEY_ACCESS_TELEGRAM_ALLOW_USERS": "1,2,3",
		"PARLEY_DATA_DIR":                    b.TempDir(),
		"PARLEY_LLM_OPENAI_API_KEY":          "sk-load",
		"PARLEY_LLM_OPENAI_BASE_URL":         "http://127.0.0.1:2/v1",
	})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(opts); err != nil {
			b.Fatal(err)
		}
	}
}
