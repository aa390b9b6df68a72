package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestUnknownSubcommand: an unknown command is an error with a suggestion
// when one is close, and a non-zero exit; a group alone still prints its
// usage.
func TestUnknownSubcommand(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"frobnicate"}, 1, `parley: unknown command "frobnicate" for "parley"; the commands are `},
		{[]string{"doctr"}, 1, `parley: unknown command "doctr" for "parley"; did you mean doctor?`},
		{[]string{"skills", "install"}, 1, `parley: unknown command "install" for "parley skills"; the commands are add, export, import, ls, rm`},
		{[]string{"skills", "lss"}, 1, `did you mean ls?`},
		{[]string{"kb", "serch", "x"}, 1, `unknown command "serch" for "parley kb"; did you mean search?`},
		{[]string{"skills"}, 0, "parley skills [command]"},
		{[]string{"kb"}, 0, "parley kb [command]"},
	} {
		var out bytes.Buffer
		e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &out,
			lookupEnv: func(string) (string, bool) { return "", false }}
		if code := execute(t.Context(), e, tt.args); code != tt.code || !strings.Contains(out.String(), tt.want) {
			t.Errorf("parley %s: exit %d, want %d; output lacks %q:\n%s", strings.Join(tt.args, " "), code, tt.code, tt.want, out.String())
		}
	}
}

// TestMisspeltEnvRefused: the real binary refuses a misspelt PARLEY_*
// variable, suggesting the right one, instead of ignoring it.
func TestMisspeltEnvRefused(t *testing.T) {
	sb := newSandbox(t, "PARLEY_LLM_MODLE=openai/gpt-4.1-mini", "OPENAI_API_KEY=sk-test-0123456789")
	out, errOut, code := sb.run(t, "", "chat")
	if code == 0 || !strings.Contains(out+errOut, "PARLEY_LLM_MODLE: unknown environment variable; did you mean PARLEY_LLM_MODEL?") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
