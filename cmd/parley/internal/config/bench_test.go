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
