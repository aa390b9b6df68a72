package config

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// Console is the web console (docs/console.md).
type Console struct {
	// Listen is host:port; "" turns the console off.
	Listen string `mapstructure:"listen"`
	// PublicURL is where people reach it, behind a reverse proxy: the
	// base of sign-in links; "" is http:// and Listen.
	PublicURL string `mapstructure:"public_url"`
	// TrustedProxies are the addresses or CIDR prefixes of the proxies
	// whose X-Forwarded-For and X-Forwarded-Proto the console believes.
	TrustedProxies []string `mapstructure:"trusted_proxies"`
}

// DefaultConsoleListen is where the console listens unless told: this
// machine alone.
const DefaultConsoleListen = "127.0.0.1:8090"

// Proxies are TrustedProxies as prefixes (an address alone is a /32 or
// /128); Load has checked them.
func (c Console) Proxies() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range c.TrustedProxies {
		if p, err := parseProxy(s); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// BaseURL is where sign-in links point: PublicURL, else Listen over
// plain HTTP (a wildcard host as localhost).
func (c Console) BaseURL() string {
	if c.PublicURL != "" {
		return strings.TrimRight(c.PublicURL, "/")
	}
	host, port, _ := net.SplitHostPort(c.Listen)
	if a, err := netip.ParseAddr(host); host == "" || err == nil && a.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

func parseProxy(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		return netip.ParsePrefix(s)
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// consoleProblems are what is wrong with console.*.
func (c Console) problems() []string {
	var p []string
	if c.Listen != "" && !isHostPort(c.Listen) {
		p = append(p, fmt.Sprintf("console.listen: %q is not valid; want host:port, e.g. 127.0.0.1:8090, or empty to turn the console off", c.Listen))
	}
	if c.PublicURL != "" && !isHTTPURL(c.PublicURL) {
		p = append(p, fmt.Sprintf("console.public_url: %q is not a valid URL; want https://host[/path]", c.PublicURL))
	}
	for i, s := range c.TrustedProxies {
		if _, err := parseProxy(s); err != nil {
			p = append(p, fmt.Sprintf("console.trusted_proxies[%d]: %q is neither an address nor a prefix (10.0.0.0/8)", i, s))
		}
	}
	return p
}
