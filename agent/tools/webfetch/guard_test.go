package webfetch

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestClassifyAddr(t *testing.T) {
	tests := []struct {
		addr string
		want string // "" = allowed
	}{
		// Public addresses pass.
		{"8.8.8.8", ""},
		{"1.1.1.1", ""},
		{"93.184.215.14", ""},
		{"100.63.255.255", ""}, // just below CGNAT
		{"100.128.0.0", ""},    // just above
		{"172.15.255.255", ""}, // just below 172.16/12
		{"172.32.0.0", ""},     // just above
		{"198.17.255.255", ""},
		{"198.20.0.0", ""},
		{"223.255.255.255", ""},
		{"2606:4700:4700::1111", ""},
		{"2001:4860:4860::8888", ""},
		{"64:ff9b::808:808", ""}, // NAT64 of a public address
		{"2002:808:808::1", ""},  // 6to4 of a public address
		{"::ffff:8.8.8.8", ""},   // mapped public
		{"2001:200::1", ""},      // just past 2001::/23
		{"fe80::1%eth0", "link-local address"},

		{"0.0.0.0", "unspecified address"},
		{"0.1.2.3", "this-network address"},
		{"10.255.255.255", "private address"},
		{"100.64.0.0", "carrier-grade NAT (shared) address"},
		{"100.100.100.200", "carrier-grade NAT (shared) address"},
		{"100.127.255.255", "carrier-grade NAT (shared) address"},
		{"127.0.0.1", "loopback address"},
		{"127.255.255.254", "loopback address"},
		{"169.254.169.254", "link-local address"},
		{"172.16.0.0", "private address"},
		{"172.31.255.255", "private address"},
		{"192.0.0.8", "IETF protocol assignment address"},
		{"192.0.2.1", "documentation address"},
		{"198.51.100.7", "documentation address"},
		{"203.0.113.9", "documentation address"},
		{"192.88.99.1", "6to4 relay anycast address"},
		{"192.168.0.1", "private address"},
		{"198.18.0.0", "benchmarking address"},
		{"198.19.255.255", "benchmarking address"},
		{"224.0.0.251", "multicast address"},
		{"239.255.255.250", "multicast address"},
		{"240.0.0.1", "reserved address"},
		{"255.255.255.255", "broadcast address"},

		{"::", "unspecified address"},
		{"::1", "loopback address"},
		{"::ffff:127.0.0.1", "loopback address"},
		{"::ffff:10.1.2.3", "private address"},
		{"::ffff:169.254.169.254", "link-local address"},
		{"::ffff:0.0.0.0", "unspecified address"},
		{"::127.0.0.1", "reserved address"}, // IPv4-compatible, deprecated
		{"64:ff9b::7f00:1", "loopback address (NAT64 of 127.0.0.1)"},
		{"64:ff9b::a9fe:a9fe", "link-local address (NAT64 of 169.254.169.254)"},
		{"64:ff9b:1::a00:1", "reserved address"}, // local-use NAT64
		{"2002:7f00:1::", "loopback address (6to4 of 127.0.0.1)"},
		{"2002:c0a8:101::1", "private address (6to4 of 192.168.1.1)"},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo address"},
		{"2001:db8::1", "documentation address"},
		{"3fff::1", "documentation address"},
		{"2001:10::1", "IETF protocol assignment address"},
		{"fc00::1", "private address"},
		{"fd12:3456::1", "private address"},
		{"fe80::1", "link-local address"},
		{"febf::1", "link-local address"},
		{"fec0::1", "site-local address"},
		{"ff02::1", "multicast address"},
		{"100::1", "reserved address"},
		{"4000::1", "reserved address"},
	}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.addr)
		if got := classifyAddr(a.WithZone("")); got != tt.want {
			t.Errorf("classifyAddr(%s) = %q, want %q", tt.addr, got, tt.want)
		}
	}
}

func TestClassifyName(t *testing.T) {
	for _, h := range []string{"localhost", "LocalHost", "localhost.", "a.b.localhost", "ip6-localhost",
		"metadata.google.internal", "METADATA.GOOGLE.INTERNAL.", "metadata", "metadata.goog", "instance-data"} {
		if classifyName(h) == "" {
			t.Errorf("classifyName(%q) allowed", h)
		}
	}
	for _, h := range []string{"example.com", "localhost.example.com", "notlocalhost", "metadata.example.com", "google.internal.example"} {
		if k := classifyName(h); k != "" {
			t.Errorf("classifyName(%q) = %q, want allowed", h, k)
		}
	}
}

// TestControl exercises the dial hook on its own: it is the check that
// cannot be bypassed by DNS or redirects, so it must refuse by itself.
func TestControl(t *testing.T) {
	g := mustGuard(t, Options{})
	tests := []struct {
		network, addr string
		refused       bool
	}{
		{"tcp4", "127.0.0.1:80", true},
		{"tcp6", "[::1]:443", true},
		{"tcp6", "[fe80::1%eth0]:80", true},
		{"tcp4", "169.254.169.254:80", true},
		{"tcp6", "[::ffff:10.0.0.1]:80", true},
		{"tcp4", "93.184.215.14:443", false},
		{"tcp6", "[2606:4700::1111]:443", false},
		{"udp4", "8.8.8.8:53", true},
		{"tcp4", "not-an-address:80", true},
	}
	for _, tt := range tests {
		err := g.control(tt.network, tt.addr, nil)
		if (err != nil) != tt.refused {
			t.Errorf("control(%s, %s) = %v, refused want %v", tt.network, tt.addr, err, tt.refused)
		}
	}

	allowed := mustGuard(t, Options{AllowAddr: allowOnly(netip.MustParseAddr("127.0.0.1"))})
	if err := allowed.control("tcp4", "127.0.0.1:80", nil); err != nil {
		t.Errorf("AllowAddr: %v", err)
	}
	if err := allowed.control("tcp4", "127.0.0.2:80", nil); err == nil {
		t.Error("AllowAddr let 127.0.0.2 through")
	}
}

// TestDialRefusesResolvedAddress calls the Transport's dial function the
// way a redirect would, with a name the URL checks never saw.
func TestDialRefusesResolvedAddress(t *testing.T) {
	g := mustGuard(t, Options{Resolve: resolver(map[string]string{"rebind.example": "10.1.2.3"})})
	for _, addr := range []string{"rebind.example:80", "127.0.0.1:80", "[::1]:80", "localhost:80"} {
		conn, err := g.dialContext(context.Background(), "tcp", addr)
		if err == nil {
			conn.Close()
			t.Fatalf("dial %s succeeded", addr)
		}
		if _, ok := errors.AsType[*refusedError](err); !ok {
			t.Errorf("dial %s: %v is not a refusal", addr, err)
		}
	}
	_, err := g.dialContext(context.Background(), "tcp", "rebind.example:80")
	if want := "rebind.example resolves to 10.1.2.3, a private address"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func mustGuard(t *testing.T, opts Options) *guard {
	t.Helper()
	g, err := newGuard(opts)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
