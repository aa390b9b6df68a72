package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestVersionAndFlag: `parley version` and `parley --version` both print
// the version, commit and build date set with -ldflags -X.
func TestVersionAndFlag(t *testing.T) {
	oldV, oldC, oldD := version, commit, date
	t.Cleanup(func() { version, commit, date = oldV, oldC, oldD })
	version, commit, date = "v9.8.7", "0123abcdef", "2026-12-06T09:00:00Z"

	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out, errOut bytes.Buffer
		e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
			lookupEnv: func(string) (string, bool) { return "", false }}
		if code := execute(t.Context(), e, args); code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errOut.String())
		}
		got := out.String()
		if !strings.HasPrefix(got, "parley ") {
			t.Errorf("%v = %q, want it to start with \"parley \"", args, got)
		}
		for _, want := range []string{"v9.8.7", "commit 0123abcdef", "built 2026-12-06T09:00:00Z"} {
			if !strings.Contains(got, want) {
				t.Errorf("%v = %q, want %q in it", args, got, want)
			}
		}
	}
}

// TestVersionUnset: a plain build says so instead of printing empty fields.
func TestVersionUnset(t *testing.T) {
	oldV, oldC, oldD := version, commit, date
	t.Cleanup(func() { version, commit, date = oldV, oldC, oldD })
	version, commit, date = "dev", "", ""
	if got := versionString(); !strings.Contains(got, "commit ") || strings.Contains(got, "commit ,") || strings.Contains(got, "built ,") {
		t.Errorf("versionString() = %q", got)
	}
}
