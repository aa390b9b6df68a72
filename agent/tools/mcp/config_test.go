package mcp

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		cfg  ServerConfig
		want string // "" = valid
	}{
		{ServerConfig{Name: "fs", Command: "npx", Args: []string{"-y", "x"}, Env: map[string]string{"A": "b"}}, ""},
		{ServerConfig{Name: "gh", URL: "https://api.example.com/mcp", Headers: map[string]string{"Authorization": "x"}}, ""},
		{ServerConfig{Command: "x"}, "no name"},
		{ServerConfig{Name: "a"}, "neither command nor url"},
		{ServerConfig{Name: "a", Command: "x", URL: "http://h"}, "both command and url"},
		{ServerConfig{Name: "a", Command: "x", Headers: map[string]string{"A": "b"}}, "headers apply only"},
		{ServerConfig{Name: "a", URL: "http://h", Env: map[string]string{"A": "b"}}, "args and env apply only"},
		{ServerConfig{Name: "a", URL: "ftp://h/x"}, "want http(s)"},
		{ServerConfig{Name: "a", URL: "/relative"}, "want http(s)"},
		{ServerConfig{Name: "a", URL: "http://h/%zz?key=s3cret"}, "url: invalid URL escape"},
	}
	for _, tc := range tests {
		err := tc.cfg.validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.cfg, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want %q", tc.cfg, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "s3cret"):
			t.Errorf("error shows the URL: %v", err)
		}
	}
}

func TestChildEnv(t *testing.T) {
	t.Setenv("PATH", "/usr/bin")
	t.Setenv("HOME", "/home/p")
	t.Setenv("ANTHROPIC_API_KEY", "secret")
	got := childEnv(map[string]string{"TOKEN": "t", "A": "1", "PATH": "/opt/bin"})
	want := []string{"PATH=/usr/bin", "HOME=/home/p", "A=1", "PATH=/opt/bin", "TOKEN=t"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("childEnv (-want +got):\n%s", diff)
	}
}

func TestHeaderTransportKeepsProtocolHeaders(t *testing.T) {
	var seen http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = r.Header.Clone() }))
	defer srv.Close()
	c := &http.Client{Transport: &headerTransport{base: http.DefaultTransport,
		headers: map[string]string{"Authorization": "Bearer x", "Content-Type": "text/evil"}}}
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if seen.Get("Authorization") != "Bearer x" || seen.Get("Content-Type") != "application/json" {
		t.Errorf("headers = %v", seen)
	}
	if req.Header.Get("Authorization") != "" {
		t.Error("the caller's request was modified")
	}
}

func TestRedactURL(t *testing.T) {
	base := errors.New("boom")
	err := redactURL(fmt.Errorf(`Post "https://u:pw@h/mcp?key=s3cret": %w`, base), "https://u:pw@h/mcp?key=s3cret")
	if msg := err.Error(); strings.Contains(msg, "s3cret") || strings.Contains(msg, "pw") || !strings.Contains(msg, "https://h/mcp?…") {
		t.Errorf("redacted = %q", msg)
	}
	if !errors.Is(err, base) {
		t.Error("redaction lost the wrapped error")
	}
	plain := errors.New("x")
	if redactURL(plain, "https://h/mcp") != plain {
		t.Error("a URL without secrets was rewritten")
	}
}
