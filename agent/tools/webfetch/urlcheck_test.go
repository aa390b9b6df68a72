package webfetch

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParseURLNormalizes(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  https://Example.COM/Path?q=1#frag  ", "https://example.com/Path?q=1"},
		{"HTTP://example.com:080/", "http://example.com:80/"},
		{"http://bücher.example/", "http://xn--bcher-kva.example/"},
		{"http://[2606:4700:0:0::1111]/", "http://[2606:4700::1111]/"},
		{"http://93.184.215.14/", "http://93.184.215.14/"},
		{"http://my_host.example/", "http://my_host.example/"},
		{"http://example.com./", "http://example.com./"},
		{"http://example.com/search?q=a b&x=\"é\"", "http://example.com/search?q=a%20b&x=%22%C3%A9%22"},
		{"http://example.com/?a=%20&b=c", "http://example.com/?a=%20&b=c"},
	}
	for _, tt := range tests {
		u, err := parseURL(tt.in)
		if err != nil {
			t.Errorf("parseURL(%q): %v", tt.in, err)
			continue
		}
		if got := u.String(); got != tt.want {
			t.Errorf("parseURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzParseURL: the pre-validation never panics, and whatever it accepts
// is an http(s) URL with a plain host and no credentials that validates
// again unchanged.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"https://example.com/a?b=c#d", "http://127.0.0.1:8080/", "http://[::ffff:127.0.0.1]/",
		"http://2130706433/", "http://0x7f.1/", "file:///etc/passwd", "javascript:alert(1)",
		"http://user:pass@host/", "http://[fe80::1%25eth0]/", "http://bücher.example/",
		"http://１２７.０.０.１/", "http://%e4%b8%ad.example/", "http://a..b/", "http://example.com:0/",
		"//example.com", "http:/\\example.com", "https://xn--nxasmq6b.example/", "",
		"http://a/" + strings.Repeat("\xff", 2000), // grows past the limit once escaped
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := parseURL(raw)
		if err != nil {
			return
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("%q: scheme %q accepted", raw, u.Scheme)
		}
		if u.User != nil || u.Opaque != "" || u.Fragment != "" {
			t.Fatalf("%q: accepted %#v", raw, u)
		}
		host := u.Hostname()
		if host == "" {
			t.Fatalf("%q: empty host accepted", raw)
		}
		if a, err := netip.ParseAddr(host); err == nil && a.Zone() != "" {
			t.Fatalf("%q: zone accepted", raw)
		}
		if !isASCII(host) || strings.ContainsAny(host, "%/\\@ ") {
			t.Fatalf("%q: host %q not normalized", raw, host)
		}
		again, err := parseURL(u.String())
		if err != nil {
			t.Fatalf("%q: normalized %q rejected: %v", raw, u, err)
		}
		if again.String() != u.String() {
			t.Fatalf("%q: not idempotent: %q then %q", raw, u, again)
		}
	})
}
