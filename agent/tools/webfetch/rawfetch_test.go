package webfetch

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"
)

func newRawFetcher(t *testing.T, opts Options) *Fetcher {
	t.Helper()
	f, err := NewFetcher(opts)
	if err != nil {
		t.Fatalf("NewFetcher: %v", err)
	}
	return f
}

// TestFetcherRefusesLoopback: Fetch goes through the tool's guard, so the
// test server is out of reach without AllowAddr, and nothing is sent.
func TestFetcherRefusesLoopback(t *testing.T) {
	ts := newTestServer(t)
	f := newRawFetcher(t, Options{Timeout: 5 * time.Second, Resolve: resolver(map[string]string{"evil.example": "127.0.0.1"})})
	for _, tt := range []struct{ url, want string }{
		{ts.URL + "/plain", "refused: 127.0.0.1 is a loopback address"},
		{"http://localhost:" + ts.port + "/plain", "refused: localhost is a loopback host name"},
		{"http://evil.example:" + ts.port + "/plain", "refused: evil.example resolves to 127.0.0.1, a loopback address"},
		{"http://169.254.169.254/latest/meta-data/", "refused: 169.254.169.254 is a link-local address"},
		{"file:///etc/passwd", `unsupported URL scheme "file"`},
	} {
		got, err := f.Fetch(t.Context(), tt.url, 0)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Fetch(%s) = %+v, %v; want %q", tt.url, got, err, tt.want)
		}
	}
	if n := ts.hits.Load(); n != 0 {
		t.Fatalf("server got %d requests", n)
	}

	// Allowed in, a redirect to a private address is still refused.
	allowed := newRawFetcher(t, Options{AllowAddr: allowOnly(ts.addr), Timeout: 5 * time.Second})
	_, err := allowed.Fetch(t.Context(), ts.URL+"/to-private", 0)
	if want := "refused: redirect to http://10.0.0.1/admin (private address)"; err == nil || err.Error() != want {
		t.Errorf("redirect: err = %v, want %q", err, want)
	}
}

func TestFetcherFetch(t *testing.T) {
	ts := newTestServer(t)
	f := newRawFetcher(t, Options{AllowAddr: allowOnly(ts.addr), Timeout: 5 * time.Second})
	tests := []struct {
		name, path  string
		contentType string
		body        string
		finalPath   string
		wantErr     string
	}{
		// Types the tool refuses are the caller's to judge here.
		{name: "png", path: "/png", contentType: "image/png", body: "\x89PNG\r\n\x1a\n"},
		{name: "pdf", path: "/pdf", contentType: "application/pdf", body: "%PDF-1.7"},
		{name: "html as sent", path: "/links", contentType: "text/html; charset=utf-8", body: linkListHTML},
		{name: "no content type", path: "/untyped", contentType: "", body: articleHTML},
		{name: "latin1 bytes untouched", path: "/latin1-plain", contentType: "text/plain; charset=iso-8859-1", body: "d\xe9j\xe0 vu"},
		{name: "redirect", path: "/to-plain", contentType: "text/plain; charset=utf-8", body: "just some plain text\nsecond line", finalPath: "/plain"},
		{name: "404", path: "/gone", wantErr: "HTTP 404 Not Found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.Fetch(t.Context(), ts.URL+tt.path, 0)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			final := tt.finalPath
			if final == "" {
				final = tt.path
			}
			if got.URL != ts.URL+final || got.ContentType != tt.contentType || string(got.Body) != tt.body || got.Cut {
				t.Errorf("got %q %q %q cut=%v\nwant %q %q %q", got.URL, got.ContentType, got.Body, got.Cut, ts.URL+final, tt.contentType, tt.body)
			}
		})
	}
}

// TestFetcherTooLarge: a knowledge-base document must not be stored cut,
// so a body over the limit is an error, whether the server declares its
// length or streams it.
func TestFetcherTooLarge(t *testing.T) {
	body := strings.Repeat("0123456789", 300) // 3000 bytes
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if r.URL.Path == "/declared" {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		} else {
			w.(http.Flusher).Flush() // no Content-Length: chunked
		}
		w.Write([]byte(body))
	}))
	defer srv.Close()
	f := newRawFetcher(t, Options{AllowAddr: allowOnly(netip.MustParseAddr("127.0.0.1")), MaxBytes: 2000})

	for _, path := range []string{"/declared", "/streamed"} {
		for _, max := range []int64{1000, 0} { // 0: Options.MaxBytes
			got, err := f.Fetch(t.Context(), srv.URL+path, max)
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("%s max %d: err = %v, want ErrTooLarge", path, max, err)
			}
			if !got.Cut || got.Body != nil || got.ContentType != "text/plain" {
				t.Errorf("%s max %d: got %+v", path, max, got)
			}
		}
		limit := "1000 bytes"
		if _, err := f.Fetch(t.Context(), srv.URL+path, 1000); err == nil || !strings.Contains(err.Error(), limit) {
			t.Errorf("%s: err = %v, want it to name the limit %q", path, err, limit)
		}
		// Exactly at the limit is whole.
		got, err := f.Fetch(t.Context(), srv.URL+path, int64(len(body)))
		if err != nil || string(got.Body) != body || got.Cut {
			t.Errorf("%s at the limit: %v, %d bytes, cut=%v", path, err, len(got.Body), got.Cut)
		}
	}
}

func TestFetcherTimeout(t *testing.T) {
	ts := newTestServer(t)
	f := newRawFetcher(t, Options{AllowAddr: allowOnly(ts.addr), Timeout: 100 * time.Millisecond})
	_, err := f.Fetch(t.Context(), ts.URL+"/slow", 0)
	if err == nil || err.Error() != "timed out after 100ms" {
		t.Fatalf("err = %v", err)
	}
}
