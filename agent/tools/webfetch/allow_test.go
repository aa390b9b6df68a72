package webfetch

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestAllowHosts: an operator may open an intranet host on purpose (by
// name, address or prefix); anything not listed stays refused, a listed
// host's redirect elsewhere is checked as usual, and names refused by name
// can never be listed.
func TestAllowHosts(t *testing.T) {
	ts := newTestServer(t)
	names := resolver(map[string]string{"wiki.intra": "127.0.0.1", "other.intra": "127.0.0.1"})
	tests := []struct {
		name  string
		allow []string
		url   string
		want  string // "" for fetched
	}{
		{"nothing listed", nil, "http://wiki.intra:" + ts.port + "/plain", "refused: wiki.intra resolves to 127.0.0.1"},
		{"a listed name", []string{"Wiki.Intra."}, "http://wiki.intra:" + ts.port + "/plain", ""},
		{"another name at the same address", []string{"wiki.intra"}, "http://other.intra:" + ts.port + "/plain", "refused: other.intra resolves to 127.0.0.1"},
		{"a listed address", []string{"127.0.0.1"}, ts.URL + "/plain", ""},
		{"a listed prefix", []string{"127.0.0.0/8"}, "http://other.intra:" + ts.port + "/plain", ""},
		{"a prefix beside it", []string{"10.0.0.0/8"}, ts.URL + "/plain", "refused: 127.0.0.1 is a loopback address"},
		{"a listed name's redirect elsewhere", []string{"wiki.intra"}, "http://wiki.intra:" + ts.port + "/to-private", "refused: redirect to http://10.0.0.1/admin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newRawFetcher(t, Options{AllowHosts: tt.allow, Resolve: names, Timeout: 5 * time.Second})
			_, err := f.Fetch(t.Context(), tt.url, 0)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Fetch(%s) = %v, want the page", tt.url, err)
			case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
				t.Fatalf("Fetch(%s) = %v, want %q", tt.url, err, tt.want)
			}
		})
	}
}

func TestParseAllowHost(t *testing.T) {
	for _, tt := range []struct {
		in, name, nets, err string
	}{
		{in: "wiki.intra", name: "wiki.intra"},
		{in: " WIKI.Intra. ", name: "wiki.intra"},
		{in: "10.1.2.3", nets: "[10.1.2.3/32]"},
		{in: "fd00::1", nets: "[fd00::1/128]"},
		{in: "10.1.2.3/16", nets: "[10.1.0.0/16]"},
		{in: "0.0.0.0/0", err: "would allow every address"},
		{in: "::/0", err: "would allow every address"},
		{in: "localhost", err: "loopback host name"},
		{in: "metadata.google.internal", err: "cloud metadata host name"},
		{in: "*", err: "is not a host name"},
		{in: "http://wiki.intra/", err: "is not a host name"},
		{in: "", err: "is not a host name"},
	} {
		name, nets, err := ParseAllowHost(tt.in)
		got := ""
		if nets != nil {
			got = fmt.Sprint(nets)
		}
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseAllowHost(%q) = %q %v %v, want an error saying %q", tt.in, name, nets, err, tt.err)
			}
		case err != nil || name != tt.name || got != tt.nets:
			t.Errorf("ParseAllowHost(%q) = %q %s %v, want %q %s", tt.in, name, got, err, tt.name, tt.nets)
		}
	}
}
