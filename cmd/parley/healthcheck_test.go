package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHealthcheck(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
		w.Write([]byte("ok\n"))
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]

	run := func(yaml string) (int, string, string) {
		t.Helper()
		path := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
			lookupEnv: func(string) (string, bool) { return "", false }}
		code := execute(t.Context(), e, []string{"healthcheck", "--config", path})
		return code, out.String(), errOut.String()
	}

	// Listening on every interface: checked through the loopback.
	if code, out, errOut := run("http:\n  listen: 0.0.0.0:" + port + "\n"); code != 0 || out != "ok\n" {
		t.Errorf("healthy: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	status = http.StatusServiceUnavailable
	if code, _, errOut := run("http:\n  listen: 127.0.0.1:" + port + "\n"); code != 1 || !strings.Contains(errOut, "503") {
		t.Errorf("unhealthy: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := run("data_dir: ./data\n"); code != 1 || !strings.Contains(errOut, "http.listen is not set") {
		t.Errorf("no http.listen: exit %d, stderr %q", code, errOut)
	}
}
