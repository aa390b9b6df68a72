package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// environ is vars as os.Environ lists them.
func environ(vars map[string]string) func() []string {
	return func() []string {
		var out []string
		for k, v := range vars {
			out = append(out, k+"="+v)
		}
		return out
	}
}

// TestMisspeltEnv: a PARLEY_* variable that is no key's is an error that
// suggests the nearest; the allow list and other prefixes pass.
func TestMisspeltEnv(t *testing.T) {
	for _, tt := range []struct {
		vars map[string]string
		want string // "" loads
	}{
		{map[string]string{"PARLEY_LLM_MODLE": "x"}, "PARLEY_LLM_MODLE: unknown environment variable; did you mean PARLEY_LLM_MODEL?"},
		{map[string]string{"PARLEY_SLACK_BOT_TOKN": "x"}, "did you mean PARLEY_SLACK_BOT_TOKEN?"},
		{map[string]string{"PARLEY_MEMORY_GUARDMODEL": "off"}, "did you mean PARLEY_MEMORY_GUARD_MODEL?"},
		{map[string]string{"PARLEY_llm_model": "x"}, "did you mean PARLEY_LLM_MODEL?"},
		{map[string]string{"PARLEY_FROBNICATE": "1"}, "PARLEY_FROBNICATE: unknown environment variable (each key of config.example.yaml has one"},
		{map[string]string{"PARLEY_LLM_MODEL": "openai/gpt-4.1-mini", "PARLEY_MEMORY_GUARD_MODEL": "off"}, ""},
		{map[string]string{"PARLEY_TEST_POSTGRES_URL": "x", "PARLEY_GUARD_JUDGE_MODEL": "x", "PARLEY_PPROF": "x", "PARLEY_INIT_PROBE": "1"}, ""},
		{map[string]string{"OPENAI_API_KEY": "sk-x", "PARLEYX": "1", "MY_PARLEY_THING": "1"}, ""},
	} {
		_, err := Load(hermetic(t, tt.vars))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%v: %v", tt.vars, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%v: error %v, want %q", tt.vars, err, tt.want)
		}
	}
}

// TestMisspeltEnvDefaultEnviron: with the default Environ (the process's),
// only the names the injected Env finds count.
func TestMisspeltEnvDefaultEnviron(t *testing.T) {
	t.Setenv("PARLEY_LLM_MODLE", "x")
	opts := hermetic(t, nil)
	opts.Environ = nil
	if _, err := Load(opts); err != nil {
		t.Errorf("an injected Env without the variable: %v", err)
	}
	opts.Env = nil // the process's
	if _, err := Load(opts); err == nil || !strings.Contains(err.Error(), "did you mean PARLEY_LLM_MODEL?") {
		t.Errorf("the process's environment: %v", err)
	}
}

// TestMisspeltKey: an unknown key in the file suggests the nearest key.
func TestMisspeltKey(t *testing.T) {
	for content, want := range map[string]string{
		"llm:\n  modle: openai/gpt-4.1-mini\n": "llm.modle: unknown key; did you mean llm.model?",
		"memory:\n  guard_modle: off\n":        "memory.guard_modle: unknown key; did you mean memory.guard_model?",
		"slack:\n  bot_tokn: x\n":              "slack.bot_tokn: unknown key; did you mean slack.bot_token?",
		"frobnicate: 1\n":                      "frobnicate: unknown key (config.example.yaml lists every key)",
	} {
		if _, err := loadYAML(t, content, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", content, err, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "abc", 0}, {"MODLE", "MODEL", 1}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"ab", "ba", 1}} {
		if got := editDistance(tt.a, tt.b); got != tt.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.d)
		}
	}
}

// TestNonConfigEnvListed: every PARLEY_* name the program's own code (not
// its tests) spells in a string is a key's variable or on nonConfigEnv,
// so a new one is not refused as a typo at start.
func TestNonConfigEnvListed(t *testing.T) {
	c := Default(hermetic(t, nil).Platforms...)
	known := map[string]bool{}
	for _, l := range c.leaves() {
		known[EnvVar(l.key)] = true
	}
	name := regexp.MustCompile(`PARLEY_[A-Z0-9_]*[A-Z0-9]`)
	root := filepath.Join("..", "..", "..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, _ := strconv.Unquote(lit.Value)
			if !strings.HasPrefix(s, "PARLEY_") {
				return true
			}
			if v := name.FindString(s); v == s && !known[v] && !nonConfig(v) {
				t.Errorf("%s: %s is neither a key's variable nor on nonConfigEnv (typos.go)", path, v)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
