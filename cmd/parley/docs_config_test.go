package main

// The configuration a set-up page shows, for TestDocsPlatformPages:
// Parley's keys as config.example.yaml has them, the page's YAML read,
// changed and loaded as Parley loads a file.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/cmd/parley/internal/platforms"
)

// docConfigKeys are config.example.yaml's keys, which are all the keys
// there are (TestExampleDocumentsEveryKey): its leaves, and the sections
// above them.
func docConfigKeys(t *testing.T) (leaves, sections map[string]bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "config.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := yaml.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	leaves, sections = map[string]bool{}, map[string]bool{}
	for _, k := range docYamlLeaves(root) {
		leaves[k] = true
		for i := range len(k) {
			if k[i] == '.' {
				sections[k[:i]] = true
			}
		}
	}
	return leaves, sections
}

// docYamlLeaves are the dotted keys of m's leaves (an empty mapping is one).
func docYamlLeaves(m map[string]any) []string {
	var out []string
	var walk func(m map[string]any, prefix string)
	walk = func(m map[string]any, prefix string) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
				walk(sub, prefix+k+".")
				continue
			}
			out = append(out, prefix+k)
		}
	}
	walk(m, "")
	slices.Sort(out)
	return out
}

func docParseYAML(t *testing.T, where, body string) map[string]any {
	t.Helper()
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	return m
}

// docYamlGet is the value at dotted key in m.
func docYamlGet(m map[string]any, key string) (any, bool) {
	parts := strings.Split(key, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			return nil, false
		}
		m = next
	}
	v, ok := m[parts[len(parts)-1]]
	return v, ok
}

// docYamlSet sets dotted key in m to v, creating sections; nil deletes it.
func docYamlSet(m map[string]any, key string, v any) {
	parts := strings.Split(key, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	if v == nil {
		delete(m, parts[len(parts)-1])
		return
	}
	m[parts[len(parts)-1]] = v
}

func docCloneYAML(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	b, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return docParseYAML(t, "clone", string(b))
}

// docWriteConfig writes m as a config file readable by its owner alone.
func docWriteConfig(t *testing.T, m map[string]any) string {
	t.Helper()
	b, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// docLoadConfig loads the file at path as parley does, with env as the
// whole environment.
func docLoadConfig(path string, env map[string]string) (*config.Config, error) {
	return config.Load(config.LoadOptions{
		Path: path,
		Env:  func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Environ: func() []string {
			var out []string
			for k, v := range env {
				out = append(out, k+"="+v)
			}
			return out
		},
		Platforms: platforms.All(),
	})
}

// docIsolatedEnv is an environment with nothing of the host's: a data
// directory and a config home of the test's own.
func docIsolatedEnv(t *testing.T) map[string]string {
	return map[string]string{"PARLEY_DATA_DIR": filepath.Join(t.TempDir(), "data"), "XDG_CONFIG_HOME": t.TempDir()}
}
