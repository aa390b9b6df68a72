package webfetch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
)

// testServer is an httptest server on 127.0.0.1 serving every fixture.
// hits counts requests, so refusal tests can prove nothing was sent.
type testServer struct {
	*httptest.Server
	addr netip.Addr // the server's IP, the one address tests allow
	port string
	hits atomic.Int64
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	ts := &testServer{}
	mux := http.NewServeMux()
	serve := func(ct, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if ct == "" {
				w.Header()["Content-Type"] = nil // stop net/http sniffing it for us
			} else {
				w.Header().Set("Content-Type", ct)
			}
			fmt.Fprint(w, body)
		}
	}
	redirect := func(to func() string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, to(), http.StatusFound)
		}
	}
	mux.HandleFunc("/article", serve("text/html; charset=utf-8", articleHTML))
	mux.HandleFunc("/links", serve("text/html; charset=utf-8", linkListHTML))
	mux.HandleFunc("/plain", serve("text/plain; charset=utf-8", "just some plain text\nsecond line"))
	mux.HandleFunc("/markdown", serve("text/markdown", "# Heading\n\n- item"))
	mux.HandleFunc("/json", serve("application/json", `{"name":"parley","ok":true}`))
	mux.HandleFunc("/xml", serve("application/xml", `<feed><title>x</title></feed>`))
	mux.HandleFunc("/latin1", serve("text/html; charset=ISO-8859-1", latin1Page))
	mux.HandleFunc("/latin1-meta", serve("text/html", latin1MetaPage))
	mux.HandleFunc("/latin1-plain", serve("text/plain; charset=iso-8859-1", "d\xe9j\xe0 vu"))
	mux.HandleFunc("/untyped", serve("", articleHTML))
	mux.HandleFunc("/big", serve("text/plain", strings.Repeat("0123456789\n", 300))) // 3300 bytes
	mux.HandleFunc("/long", serve("text/plain", strings.Repeat("word ", 1000)))      // 5000 chars
	mux.HandleFunc("/png", serve("image/png", "\x89PNG\r\n\x1a\n"))
	mux.HandleFunc("/pdf", serve("application/pdf", "%PDF-1.7"))
	mux.HandleFunc("/octet", serve("application/octet-stream", "\x00\x01"))
	mux.HandleFunc("/nul", serve("text/plain", "MZ\x00\x00binary"))
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // until the client gives up
	})
	mux.HandleFunc("/loop/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		http.Redirect(w, r, fmt.Sprintf("/loop/%d", n+1), http.StatusFound)
	})
	mux.HandleFunc("/to-plain", redirect(func() string { return "/plain" }))
	mux.HandleFunc("/to-gone", redirect(func() string { return "/gone" }))
	mux.HandleFunc("/to-metadata", redirect(func() string { return "http://169.254.169.254/latest/meta-data/" }))
	mux.HandleFunc("/to-private", redirect(func() string { return "http://10.0.0.1/admin" }))
	mux.HandleFunc("/to-evil", redirect(func() string { return "http://evil.example:" + ts.port + "/plain" }))
	mux.HandleFunc("/to-localhost", redirect(func() string { return "http://localhost:" + ts.port + "/plain" }))
	mux.HandleFunc("/to-file", redirect(func() string { return "file:///etc/passwd" }))
	mux.HandleFunc("/to-creds", redirect(func() string { return "http://user:pw@127.0.0.1:" + ts.port + "/plain" }))

	ts.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	ts.Start()
	t.Cleanup(ts.Close)
	ap := ts.Listener.Addr().(*net.TCPAddr).AddrPort()
	ts.addr = ap.Addr().Unmap()
	ts.port = strconv.Itoa(int(ap.Port()))
	return ts
}

// allowOnly lets exactly one otherwise refused address through.
func allowOnly(a netip.Addr) func(netip.Addr) bool {
	return func(b netip.Addr) bool { return b == a }
}

// resolver maps names to fixed addresses, standing in for DNS.
func resolver(m map[string]string) func(context.Context, string) ([]netip.Addr, error) {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		s, ok := m[host]
		if !ok {
			return nil, fmt.Errorf("no such host %s", host)
		}
		return []netip.Addr{netip.MustParseAddr(s)}, nil
	}
}

func newTool(t *testing.T, opts Options) agent.Tool {
	t.Helper()
	tool, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tool
}

func call(ctx context.Context, tool agent.Tool, url string) (string, error) {
	args, err := json.Marshal(Args{URL: url})
	if err != nil {
		return "", err
	}
	return tool.Execute(ctx, agent.Caller{}, args)
}

func TestSpec(t *testing.T) {
	tool := newTool(t, Options{})
	spec := tool.Spec()
	if spec.Name != "web_fetch" {
		t.Errorf("name = %q", spec.Name)
	}
	var schema struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(spec.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if len(schema.Required) != 1 || schema.Required[0] != "url" || schema.Properties["url"] == nil {
		t.Errorf("schema = %s", spec.Schema)
	}
	for _, args := range []string{`{}`, `{"url": 5}`, `not json`} {
		if _, err := tool.Execute(t.Context(), agent.Caller{}, json.RawMessage(args)); err == nil {
			t.Errorf("Execute(%s): want an argument error", args)
		}
	}
}

// TestDefaultRefusesTestServer is the control for every positive test:
// the server they reach through AllowAddr is refused without it.
func TestDefaultRefusesTestServer(t *testing.T) {
	ts := newTestServer(t)
	_, err := call(t.Context(), newTool(t, Options{}), ts.URL+"/plain")
	if err == nil || !strings.Contains(err.Error(), "refused: 127.0.0.1 is a loopback address") {
		t.Fatalf("err = %v, want loopback refusal", err)
	}
	if n := ts.hits.Load(); n != 0 {
		t.Fatalf("server got %d requests", n)
	}
}

func TestSSRFRefused(t *testing.T) {
	ts := newTestServer(t)
	// Default policy; only DNS is faked, so "evil.example" can point at
	// the live test server: if the dial-time check failed, the fetch would
	// succeed and hits would move.
	tool := newTool(t, Options{
		Timeout: 5 * time.Second,
		Resolve: resolver(map[string]string{"evil.example": "127.0.0.1", "evil6.example": "::ffff:127.0.0.1"}),
	})
	p := ts.port
	tests := []struct{ url, want string }{
		{"http://127.0.0.1:" + p + "/plain", "refused: 127.0.0.1 is a loopback address"},
		{"http://127.9.9.9/", "refused: 127.9.9.9 is a loopback address"},
		{"http://localhost:" + p + "/plain", "refused: localhost is a loopback host name"},
		{"http://LOCALHOST.:" + p + "/plain", "refused: localhost. is a loopback host name"},
		{"http://app.localhost/", "refused: app.localhost is a loopback host name"},
		{"http://[::1]:" + p + "/plain", "refused: ::1 is a loopback address"},
		{"http://10.0.0.1/", "refused: 10.0.0.1 is a private address"},
		{"http://172.16.5.4/", "refused: 172.16.5.4 is a private address"},
		{"http://192.168.1.1/", "refused: 192.168.1.1 is a private address"},
		{"http://169.254.169.254/latest/meta-data/", "refused: 169.254.169.254 is a link-local address"},
		{"http://metadata.google.internal/computeMetadata/v1/", "refused: metadata.google.internal is a cloud metadata host name"},
		{"http://100.64.0.1/", "refused: 100.64.0.1 is a carrier-grade NAT (shared) address"},
		{"http://0.0.0.0:" + p + "/plain", "refused: 0.0.0.0 is an unspecified address"},
		{"http://[::]:" + p + "/plain", "refused: :: is an unspecified address"},
		{"http://[::ffff:127.0.0.1]:" + p + "/plain", "refused: ::ffff:127.0.0.1 is a loopback address"},
		{"http://[::ffff:a9fe:a9fe]/", "refused: ::ffff:169.254.169.254 is a link-local address"},
		{"http://[fe80::1]/", "refused: fe80::1 is a link-local address"},
		{"http://[fd00:ec2::254]/", "refused: fd00:ec2::254 is a private address"},
		{"http://[64:ff9b::a00:1]/", "refused: 64:ff9b::a00:1 is a private address (NAT64 of 10.0.0.1)"},
		{"http://224.0.0.1/", "refused: 224.0.0.1 is a multicast address"},
		{"http://255.255.255.255/", "refused: 255.255.255.255 is a broadcast address"},
		{"http://192.0.0.192/", "refused: 192.0.0.192 is an IETF protocol assignment address"},
		{"http://198.18.0.1/", "refused: 198.18.0.1 is a benchmarking address"},
		// Names that resolve to a refused address: only the dial-time
		// check (net.Dialer.Control) can catch these.
		{"http://evil.example:" + p + "/plain", "refused: evil.example resolves to 127.0.0.1, a loopback address"},
		// The dialer unmaps ::ffff:127.0.0.1 before Control sees it.
		{"http://evil6.example:" + p + "/plain", "refused: evil6.example resolves to 127.0.0.1, a loopback address"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			t.Parallel()
			out, err := call(t.Context(), tool, tt.url)
			if err == nil {
				t.Fatalf("fetched %q", out)
			}
			if err.Error() != tt.want {
				t.Fatalf("err = %q\nwant  %q", err, tt.want)
			}
		})
	}
	t.Cleanup(func() {
		if n := ts.hits.Load(); n != 0 {
			t.Errorf("server got %d requests; the guard let something through", n)
		}
	})
}

func TestFetch(t *testing.T) {
	ts := newTestServer(t)
	allowed := Options{AllowAddr: allowOnly(ts.addr), Timeout: 5 * time.Second}
	with := func(f func(*Options)) Options {
		o := allowed
		f(&o)
		return o
	}
	tests := []struct {
		name     string
		path     string
		opts     Options
		contains []string
		excludes []string
		wantErr  string
	}{
		{
			name: "html article",
			path: "/article",
			contains: []string{
				"# Tide Tables of Brest",
				"URL: " + ts.URL + "/article\n\n",
				"A tide coefficient compares the range",
				"| Day | High water | Coefficient |",
				"| Tuesday | 06:58 | 101 |",
				"|---|",
			},
			excludes: []string{"NAV-SENTINEL", "ASIDE-SENTINEL", "FOOTER-SENTINEL", "SCRIPT-SENTINEL", "<p>", "<table"},
		},
		{
			name:     "html without article falls back to whole page",
			path:     "/links",
			contains: []string{"# Index\n", "[LINK-ONE](" + ts.URL + "/a)", "LINK-TWO"},
		},
		{
			name:     "no content type is sniffed",
			path:     "/untyped",
			contains: []string{"# Tide Tables of Brest", "| Monday | 06:12 | 95 |"},
			excludes: []string{"NAV-SENTINEL"},
		},
		{name: "plain text", path: "/plain", contains: []string{"# plain\nURL: " + ts.URL + "/plain\n\njust some plain text\nsecond line"}},
		{name: "markdown", path: "/markdown", contains: []string{"\n\n# Heading\n\n- item"}},
		{name: "json", path: "/json", contains: []string{`{"name":"parley","ok":true}`}},
		{name: "xml", path: "/xml", contains: []string{`<feed><title>x</title></feed>`}},
		{name: "latin1 html", path: "/latin1", contains: []string{"# Café", "Le café crème et la crème brûlée"}},
		{name: "latin1 via meta", path: "/latin1-meta", contains: []string{"Naïve façade, déjà vu."}},
		{name: "latin1 text", path: "/latin1-plain", contains: []string{"déjà vu"}},
		{
			name:     "oversized body",
			path:     "/big",
			opts:     with(func(o *Options) { o.MaxBytes = 1000 }),
			contains: []string{"0123456789\n", "[… the response is larger than 1000 bytes; only the first 1000 bytes was read]"},
		},
		{
			name:     "long text truncated",
			path:     "/long",
			opts:     with(func(o *Options) { o.MaxChars = 1000 }),
			contains: []string{"word word", "[… truncated: showing the first 999 of 4999 characters]"},
		},
		{name: "redirect followed", path: "/to-plain", contains: []string{"URL: " + ts.URL + "/plain\n", "just some plain text"}},
		{name: "png", path: "/png", wantErr: "unsupported content type image/png"},
		{name: "pdf", path: "/pdf", wantErr: "unsupported content type application/pdf"},
		{name: "octet-stream", path: "/octet", wantErr: "unsupported content type application/octet-stream"},
		{name: "binary served as text", path: "/nul", wantErr: "body is binary"},
		{name: "404", path: "/gone", wantErr: "HTTP 404 Not Found"},
		{name: "404 after redirect", path: "/to-gone", wantErr: "HTTP 404 Not Found (at " + ts.URL + "/gone, after redirects)"},
		{
			name:    "timeout",
			path:    "/slow",
			opts:    with(func(o *Options) { o.Timeout = 100 * time.Millisecond }),
			wantErr: "timed out after 100ms",
		},
		{
			name:    "too many redirects",
			path:    "/loop/0",
			opts:    with(func(o *Options) { o.MaxRedirects = 3 }),
			wantErr: "too many redirects (the limit is 3)",
		},
		{
			name:    "redirects disabled",
			path:    "/to-plain",
			opts:    with(func(o *Options) { o.MaxRedirects = -1 }),
			wantErr: "too many redirects (the limit is 0)",
		},
		{
			name:    "redirect to metadata address",
			path:    "/to-metadata",
			wantErr: "refused: redirect to http://169.254.169.254/latest/meta-data/ (link-local address)",
		},
		{
			name:    "redirect to private address",
			path:    "/to-private",
			wantErr: "refused: redirect to http://10.0.0.1/admin (private address)",
		},
		{
			name:    "redirect to localhost",
			path:    "/to-localhost",
			wantErr: "refused: redirect to http://localhost:" + ts.port + "/plain (localhost is a loopback host name)",
		},
		{
			// Refused at dial time: the name passes every URL check.
			name:    "redirect to name resolving to private address",
			path:    "/to-evil",
			opts:    with(func(o *Options) { o.Resolve = resolver(map[string]string{"evil.example": "10.0.0.1"}) }),
			wantErr: "refused: redirect to http://evil.example:" + ts.port + "/plain (evil.example resolves to 10.0.0.1, a private address)",
		},
		{name: "redirect to file", path: "/to-file", wantErr: `refused: redirect to file:///etc/passwd (unsupported URL scheme "file"`},
		{name: "redirect with credentials", path: "/to-creds", wantErr: "(URLs with credentials (user:pass@host) are not allowed)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := tt.opts
			if opts.AllowAddr == nil {
				opts = allowed
			}
			out, err := call(t.Context(), newTool(t, opts), ts.URL+tt.path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v\nwant %q\nout:\n%s", err, tt.wantErr, out)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			for _, s := range tt.contains {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q\n---\n%s", s, out)
				}
			}
			for _, s := range tt.excludes {
				if strings.Contains(out, s) {
					t.Errorf("output contains %q\n---\n%s", s, out)
				}
			}
		})
	}
}

func TestRequestHeaders(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	tool := newTool(t, Options{AllowAddr: allowOnly(netip.MustParseAddr("127.0.0.1"))})
	if _, err := call(t.Context(), tool, srv.URL); err != nil {
		t.Fatal(err)
	}
	h := <-got
	if ua := h.Get("User-Agent"); ua != DefaultUserAgent {
		t.Errorf("User-Agent = %q", ua)
	}
	if !strings.Contains(h.Get("Accept"), "text/html") {
		t.Errorf("Accept = %q", h.Get("Accept"))
	}
}

// TestProxyIgnored: a proxy from the environment would be dialed instead
// of the target, so the guard would vet the wrong address.
func TestProxyIgnored(t *testing.T) {
	var proxied atomic.Bool
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Store(true)
		fmt.Fprint(w, "from proxy")
	}))
	defer proxy.Close()
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	tool := newTool(t, Options{AllowAddr: allowOnly(netip.MustParseAddr("127.0.0.1")), Timeout: 2 * time.Second})
	_, err := call(t.Context(), tool, "http://10.0.0.1/")
	if err == nil || !strings.Contains(err.Error(), "private address") {
		t.Fatalf("err = %v", err)
	}
	if proxied.Load() {
		t.Fatal("request went through the environment proxy")
	}
}

func TestCallerCancel(t *testing.T) {
	started := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
	}))
	defer srv.Close()
	tool := newTool(t, Options{AllowAddr: allowOnly(netip.MustParseAddr("127.0.0.1"))})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := call(ctx, tool, srv.URL)
		done <- err
	}()
	<-started
	cancel()
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "fetch cancelled") || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestURLRejected(t *testing.T) {
	tool := newTool(t, Options{})
	tests := []struct{ url, want string }{
		{"file:///etc/passwd", `unsupported URL scheme "file"`},
		{"ftp://example.com/file", `unsupported URL scheme "ftp"`},
		{"javascript:alert(1)", `unsupported URL scheme "javascript"`},
		{"data:text/html,<p>hi</p>", `unsupported URL scheme "data"`},
		{"gopher://example.com/", `unsupported URL scheme "gopher"`},
		{"http://user:pass@example.com/", "URLs with credentials"},
		{"https://user@example.com/", "URLs with credentials"},
		{"", "invalid URL: empty"},
		{"not a url", "invalid URL: no scheme"},
		{"example.com/page", "invalid URL: no scheme"},
		{"http://", "invalid URL: no host"},
		{"http:///path", "invalid URL: no host"},
		{"http:example.com", "invalid URL: expected scheme://host/path"},
		{"http://exa mple.com/", "invalid URL"},
		{"http://[::1/", "invalid URL"},
		{"http://example.com:99999/", `bad port "99999"`},
		{"http://2130706433/", "ambiguous numeric host"},
		{"http://0x7f.0.0.1/", "ambiguous numeric host"},
		{"http://0177.0.0.1/", "ambiguous numeric host"},
		{"http://127.1/", "ambiguous numeric host"},
		{"http://127.0.0.1./", "ambiguous numeric host"},
		{"http://[fe80::1%25eth0]/", "IPv6 zone"},
		{"http://exa_mple!.com/", "bad host name"},
		{"http://a..b/", "bad host name"},
		{"http://" + strings.Repeat("a", maxURLLen) + ".com/", "the limit is 4096"},
		// Full-width digits map to 127.0.0.1 under IDNA; checked as such.
		{"http://１２７.０.０.１/", "refused: 127.0.0.1 is a loopback address"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			t.Parallel()
			_, err := call(t.Context(), tool, tt.url)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
