package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/store"
)

// TestMemoryCommands: an operator shows, exports and erases what Parley
// remembers about one person, and no one else's.
func TestMemoryCommands(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(t.Context(), filepath.Join(dir, "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	add := func(user string, target agent.MemoryTarget, entry string) {
		if err := db.EditMemory(t.Context(), user, target, func(e []string) ([]string, error) { return append(e, entry), nil }); err != nil {
			t.Fatal(err)
		}
	}
	add("slack:U1", agent.Profile, "SRE in Berlin")
	add("slack:U1", agent.Facts, "prefers Go")
	add("slack:U2", agent.Facts, "likes tea")
	db.Close()

	env := map[string]string{"PARLEY_DATA_DIR": dir, "XDG_CONFIG_HOME": t.TempDir()}
	run := func(args ...string) (int, string) {
		var out bytes.Buffer
		e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &out,
			lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
		return execute(t.Context(), e, args), out.String()
	}
	if code, out := run("memory", "show", "--user", "slack:U1"); code != 0 || !strings.Contains(out, "SRE in Berlin") ||
		!strings.Contains(out, "prefers Go") || strings.Contains(out, "likes tea") {
		t.Fatalf("show: exit %d\n%s", code, out)
	}
	code, out := run("memory", "export", "--user", "slack:U1")
	var got memoryExport
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || got.User != "slack:U1" ||
		len(got.Profile) != 1 || len(got.Facts) != 1 || got.Facts[0] != "prefers Go" {
		t.Fatalf("export: exit %d, %v\n%s", code, err, out)
	}
	for _, bad := range [][]string{{"memory", "show", "--user", "U1"}, {"memory", "show"}, {"memory", "erase", "--user", "slack:U1"}} {
		if code, out := run(bad...); code == 0 {
			t.Fatalf("%q succeeded:\n%s", bad, out)
		}
	}
	if code, out := run("memory", "erase", "--user", "slack:U1", "--yes"); code != 0 || !strings.Contains(out, "Erased 2 entries") {
		t.Fatalf("erase: exit %d\n%s", code, out)
	}
	if _, out := run("memory", "show", "--user", "slack:U1"); !strings.Contains(out, "remembers nothing about slack:U1") {
		t.Fatalf("after erase:\n%s", out)
	}
	if _, out := run("memory", "show", "--user", "slack:U2"); !strings.Contains(out, "likes tea") {
		t.Fatalf("someone else's memory went too:\n%s", out)
	}
}
