package adapterkit

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

func TestHostsAllows(t *testing.T) {
	h, err := NewHosts("http://127.0.0.1:8080/api/", "files.slack.com")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		url  string
		want bool
	}{
		{"https://files.slack.com/files-pri/T1-F1/download/a.pdf", true},
		{"https://FILES.slack.com/files-pri/T1-F1/a.pdf", true},
		{"http://files.slack.com/files-pri/T1-F1/a.pdf", false}, // no downgrade
		{"https://files.slack.com:8443/a.pdf", false},
		{"https://files.slack.com.evil.example/a.pdf", false},
		{"https://files.slack.com@evil.example/a.pdf", false},
		{"https://evil.example/files.slack.com/a.pdf", false},
		{"https://slack.com/a.pdf", false},
		{"http://127.0.0.1:8080/files/a.pdf", true}, // the API URL's host
		{"https://127.0.0.1:8080/files/a.pdf", false},
		{"http://127.0.0.1:8081/files/a.pdf", false},
		{"/relative/a.pdf", false},
		{"", false},
	}
	for _, tt := range tests {
		u, _ := url.Parse(tt.url)
		if got := h.Allows(u); got != tt.want {
			t.Errorf("Allows(%q) = %v, want %v", tt.url, got, tt.want)
		}
	}
	if _, err := NewHosts("not a url"); err == nil {
		t.Error("NewHosts accepted a relative API URL")
	}
}

// recorder is an HTTP server that counts its requests and what
// Authorization header each carried.
type recorder struct {
	*httptest.Server
	mu    sync.Mutex
	auths []string
}

func newRecorder(t *testing.T, h http.HandlerFunc) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.auths = append(r.auths, req.Header.Get("Authorization"))
		r.mu.Unlock()
		if h != nil {
			h(w, req)
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.auths...)
}

func TestGet(t *testing.T) {
	foreign := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "stolen") })
	var platform *recorder
	platform = newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/file":
			_, _ = io.WriteString(w, "contents")
		case "/moved":
			http.Redirect(w, r, "/file", http.StatusFound)
		case "/away":
			http.Redirect(w, r, foreign.URL+"/file", http.StatusFound)
		}
	})
	hosts, err := NewHosts(platform.URL + "/api/")
	if err != nil {
		t.Fatal(err)
	}
	header := http.Header{"Authorization": {"Bearer xoxb-secret"}}
	tests := []struct {
		name     string
		url      string
		want     string
		err      error
		platform []string // Authorization headers the platform saw
	}{
		{name: "the platform's host", url: platform.URL + "/file", want: "contents", platform: []string{"Bearer xoxb-secret"}},
		{name: "a redirect on the platform's host", url: platform.URL + "/moved", want: "contents",
			platform: []string{"Bearer xoxb-secret", "Bearer xoxb-secret"}},
		{name: "a foreign host", url: foreign.URL + "/file", err: ErrHostRefused},
		{name: "a redirect to a foreign host", url: platform.URL + "/away", err: ErrRedirectRefused, platform: []string{"Bearer xoxb-secret"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(platform.seen())
			resp, err := Get(t.Context(), nil, tt.url, header, hosts)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Get = %v, want %v", err, tt.err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(b) != tt.want {
					t.Errorf("body %q, want %q", b, tt.want)
				}
			}
			if got := platform.seen()[before:]; strings.Join(got, ",") != strings.Join(tt.platform, ",") {
				t.Errorf("the platform saw Authorization %q, want %q", got, tt.platform)
			}
			if got := foreign.seen(); len(got) != 0 {
				t.Errorf("the foreign host got %d request(s), Authorization %q", len(got), got)
			}
		})
	}
}

// TestGetErrorsOmitTheURL: a URL can carry a token (Telegram's file
// URLs), so a failed download names the host only.
func TestGetErrorsOmitTheURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // connection refused from now on
	hosts, err := NewHosts(base)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Get(t.Context(), nil, base+"/file/bot123:SECRET/documents/a.pdf", nil, hosts)
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("Get = %v, want an error without the token", err)
	}
	_, err = Get(t.Context(), nil, "https://evil.example/bot123:SECRET/a.pdf", nil, hosts)
	if !errors.Is(err, ErrHostRefused) || strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("Get = %v, want ErrHostRefused without the path", err)
	}
}

// TestGetKeepsTheClientsRedirectPolicy: the adapter's own CheckRedirect
// still applies on trusted hosts, and the adapter's client is not changed.
func TestGetKeepsTheClientsRedirectPolicy(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/file", http.StatusFound)
		}
	})
	hosts, _ := NewHosts(srv.URL)
	stop := errors.New("no redirects here")
	policy := func(*http.Request, []*http.Request) error { return stop }
	client := &http.Client{CheckRedirect: policy}
	_, err := Get(t.Context(), client, srv.URL+"/moved", nil, hosts)
	if !errors.Is(err, stop) {
		t.Fatalf("Get = %v, want the client's own redirect error", err)
	}
	if client.CheckRedirect == nil || client.CheckRedirect(nil, nil) != stop {
		t.Error("Get changed the adapter's client")
	}
}
