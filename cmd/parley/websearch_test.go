package main

import (
	"bytes"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/tools/websearch/websearchtest"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// TestDoctorWebSearch: doctor makes one real search with the configured
// backend and says how many results came back, where from (scheme and
// host: a template may hold a key), or what went wrong; nothing found is
// a warning; the key is never printed.
func TestDoctorWebSearch(t *testing.T) {
	fake := websearchtest.NewServer(
		websearchtest.Result{Title: "Parley", URL: "https://parley.example/", Content: "a chat agent"},
		websearchtest.Result{Title: "Parley docs", URL: "https://parley.example/docs", Content: "docs"})
	defer fake.Close()
	searx := config.WebSearch{Backend: "searxng", URL: fake.URL, TimeoutSeconds: 5}
	got, err := webSearchCheck(t.Context(), searx)
	if want := "searxng at " + fake.URL + `: 2 results for "parley"`; err != nil || got != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	if q := fake.Queries(); len(q) != 1 || q[0] != "parley" {
		t.Fatalf("the backend was asked %q", q)
	}
	fake.FailNext(http.StatusTooManyRequests)
	if _, err := webSearchCheck(t.Context(), searx); err == nil || !strings.Contains(err.Error(), "HTTP 429") {
		t.Fatalf("a rate limited search: %v", err)
	}
	fake.SetResults()
	var w warning
	if _, err := webSearchCheck(t.Context(), searx); !errors.As(err, &w) || !strings.Contains(err.Error(), "found nothing") {
		t.Fatalf("no results: %v, want a warning", err)
	}
	off, err := webSearchCheck(t.Context(), config.WebSearch{})
	if err != nil || !strings.HasPrefix(off, "off") {
		t.Fatalf("off: %q, %v", off, err)
	}
	tmpl := config.WebSearch{Backend: "template", URLTemplate: fake.URL + "/search?format=json&token=tmpl-secret-77&q={query}", TimeoutSeconds: 5}
	if got, err := webSearchCheck(t.Context(), tmpl); err == nil || strings.Contains(got+err.Error(), "tmpl-secret-77") {
		t.Fatalf("template: %q, %v: want a warning that does not quote the URL", got, err)
	}

	// Through the command: a rejected key fails the line, unprinted.
	const key = "BSA-wrong-key-0123456789"
	env := map[string]string{
		"PARLEY_DATA_DIR": filepath.Join(t.TempDir(), "data"), "XDG_CONFIG_HOME": t.TempDir(),
		"PARLEY_TOOLS_WEB_SEARCH_BACKEND": "brave", "PARLEY_TOOLS_WEB_SEARCH_URL": fake.URL, "PARLEY_TOOLS_WEB_SEARCH_API_KEY": key,
	}
	var out bytes.Buffer
	e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &out,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	execute(t.Context(), e, []string{"doctor"})
	if !strings.Contains(out.String(), "FAIL  web_search brave at "+fake.URL+": web_search: brave answered HTTP 401") {
		t.Errorf("doctor lacks the failed search:\n%s", out.String())
	}
	if strings.Contains(out.String(), key) {
		t.Errorf("doctor printed the key:\n%s", out.String())
	}
}
