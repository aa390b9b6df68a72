package shell

import (
	"slices"
	"strings"
	"testing"
)

func TestEnvironmentHoldsNoSecrets(t *testing.T) {
	secrets := map[string]string{
		"OPENAI_API_KEY":        "sk-openai-secret",
		"ANTHROPIC_API_KEY":     "sk-ant-secret",
		"PARLEY_TELEGRAM_TOKEN": "123:telegram-secret",
		"PARLEY_DATA_DIR":       "/var/lib/parley-secret-dir",
		"OPENAI_BASE_URL":       "http://openai-base-secret",
		"SLACK_BOT_TOKEN":       "xoxb-slack-secret",
		"AWS_SECRET_ACCESS_KEY": "aws-secret",
		"MY_PASSWORD":           "hunter2-secret",
		"GITHUB_TOKEN":          "ghp-secret", // allowlisted, but looks secret
		"Db_Pass":               "pass-secret",
		"HARMLESS_VAR":          "hello world",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	tl := newTool(t, func(o *Options) {
		o.ExtraEnv = []string{
			"HARMLESS_VAR", "GITHUB_TOKEN", "Db_Pass", "MY_PASSWORD",
			"PARLEY_DATA_DIR", "OPENAI_BASE_URL", // Parley's and the SDK's settings: never
			"HOME", "PATH", "TMPDIR", // fixed by the tool
			"UNSET_VAR", "BAD=NAME", "",
		}
	})
	out := mustCall(t, tl, "s1", "env")

	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		name, value, _ := strings.Cut(line, "=")
		got[name] = value
	}
	// The shell itself maintains PWD (dash) and SHLVL/_ (bash).
	for _, shellOwn := range []string{"PWD", "OLDPWD", "SHLVL", "_"} {
		delete(got, shellOwn)
	}
	var names []string
	for n := range got {
		names = append(names, n)
	}
	slices.Sort(names)
	want := []string{"HARMLESS_VAR", "HOME", "LANG", "PATH", "TERM", "TMPDIR"}
	if !slices.Equal(names, want) {
		t.Errorf("environment names = %v, want %v\n%s", names, want, out)
	}
	for k, v := range secrets {
		if k != "HARMLESS_VAR" && strings.Contains(out, v) {
			t.Errorf("value of %s leaked into the environment", k)
		}
	}
	ws := tl.settings.workspaceRoot + "/s1"
	for name, value := range map[string]string{"HOME": ws, "TMPDIR": ws + "/.tmp", "PATH": safePath, "LANG": "C.UTF-8", "TERM": "dumb", "HARMLESS_VAR": "hello world"} {
		if got[name] != value {
			t.Errorf("%s = %q, want %q", name, got[name], value)
		}
	}
}

func TestPassable(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"HARMLESS_VAR", true},
		{"GOPATH", true},
		{"http_proxy", true},
		{"GITHUB_TOKEN", false},
		{"api_key", false},
		{"MonkeyBusiness", false}, // contains KEY: the check errs towards refusing
		{"SSH_AUTH_SOCK", false},
		{"BROWSER_COOKIES", false},
		{"SESSION_ID", false},
		{"PRIVATE_THING", false},
		{"DB_CREDENTIALS", false},
		{"PGPASSFILE", false},
		{"PARLEY_LOG_LEVEL", false},
		{"parley_log_level", false},
		{"OPENAI_BASE_URL", false},
		{"ANTHROPIC_BASE_URL", false},
		{"PATH", false},
		{"HOME", false},
		{"LANG", false},
		{"TERM", false},
		{"TMPDIR", false},
		{"", false},
		{"A=B", false},
		{"1ABC", false},
		{"WITH SPACE", false},
	}
	for _, tt := range tests {
		if got := passable(tt.name); got != tt.want {
			t.Errorf("passable(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
