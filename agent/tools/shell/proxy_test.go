package shell

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestPublicAddr(t *testing.T) {
	tests := []struct {
		addr   string
		public bool
	}{
		{"93.184.215.14", true},
		{"2606:4700::6810:84e5", true},
		{"1.1.1.1", true},
		{"127.0.0.1", false},
		{"127.8.9.10", false},
		{"::1", false},
		{"0.0.0.0", false},
		{"::", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"192.168.1.1", false},
		{"100.64.0.1", false},      // CGNAT
		{"100.100.100.200", false}, // Alibaba metadata
		{"169.254.169.254", false}, // AWS, GCP, Azure metadata
		{"192.0.0.192", false},     // Oracle metadata
		{"fd00:ec2::254", false},   // AWS metadata over IPv6 (ULA)
		{"fc00::1", false},
		{"fe80::1", false},
		{"::ffff:127.0.0.1", false}, // mapped
		{"::ffff:169.254.169.254", false},
		{"64:ff9b::a9fe:a9fe", false}, // NAT64 of 169.254.169.254
		{"64:ff9b::5db8:d70e", true},  // NAT64 of a public address
		{"2002:7f00:1::1", false},     // 6to4 of 127.0.0.1
		{"2001:0:1234::1", false},     // Teredo
		{"224.0.0.1", false},
		{"ff02::1", false},
		{"255.255.255.255", false},
		{"198.18.0.1", false},
	}
	for _, tt := range tests {
		if got := publicAddr(netip.MustParseAddr(tt.addr)); got != tt.public {
			t.Errorf("publicAddr(%s) = %v, want %v", tt.addr, got, tt.public)
		}
	}
}

// TestProxyForwards: the proxy itself, in this process: with the real
// rule it refuses the loopback target; opened to it (as a test can), it
// forwards plain requests and CONNECT tunnels.
func TestProxyForwards(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "through "+r.URL.Path)
	}))
	defer target.Close()
	tests := []struct {
		name   string
		permit func(netip.Addr) bool
		want   string
	}{
		{"public only", publicAddr, "403 Forbidden: parley sandbox: dial tcp 127.0.0.1:"},
		{"opened", func(netip.Addr) bool { return true }, "200 OK: through /x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go (&proxy{permit: tt.permit, timeout: 5 * time.Second}).serve(ln)
			proxyURL, _ := url.Parse("http://" + ln.Addr().String())
			// Plain HTTP through the proxy.
			{
				tr := &http.Transport{Proxy: http.ProxyURL(proxyURL)}
				resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(target.URL + "/x")
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if got := resp.Status + ": " + string(body); !strings.HasPrefix(got, tt.want) {
					t.Errorf("got %q, want %q", got, tt.want)
				}
			}
			// A raw CONNECT.
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			host := strings.TrimPrefix(target.URL, "http://")
			fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\nGET /x HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host, host, host)
			all, _ := io.ReadAll(c)
			tunnelled := strings.Contains(string(all), "200 Connection established") && strings.Contains(string(all), "through /x")
			if tunnelled != (tt.name == "opened") {
				t.Errorf("CONNECT answered %q", all)
			}
		})
	}
}
