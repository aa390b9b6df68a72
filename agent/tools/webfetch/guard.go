package webfetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// The SSRF guard. The model chooses the URL, so without this a prompt
// injection could make Parley read its own admin ports, the LAN or the cloud
// metadata service. Checking the host named in the URL is not enough: a
// public-looking name can resolve to 127.0.0.1 (or re-resolve differently
// between our check and the dial, DNS rebinding), and redirects pick new
// hosts. So the decisive check runs in net.Dialer.Control, on the address
// the socket is about to connect to, for every connection the Transport
// opens. The earlier checks on the URL only give clearer errors sooner.

// refusedError reports a destination the guard will not connect to.
type refusedError struct {
	host     string     // the name that was resolved; empty when the URL held an address
	addr     netip.Addr // the refused address; invalid when the name itself is refused
	kind     string     // "loopback address", "cloud metadata host name", …
	redirect string     // the redirect target that led here, if any
}

func (e *refusedError) detail() string {
	switch {
	case !e.addr.IsValid():
		return fmt.Sprintf("%s is %s", e.host, withArticle(e.kind))
	case e.host != "":
		return fmt.Sprintf("%s resolves to %s, %s", e.host, e.addr, withArticle(e.kind))
	default:
		return fmt.Sprintf("%s is %s", e.addr, withArticle(e.kind))
	}
}

func (e *refusedError) Error() string {
	if e.redirect == "" {
		return "refused: " + e.detail()
	}
	if e.host == "" && e.addr.IsValid() {
		// The address is in the URL already; the kind is all that is new.
		return fmt.Sprintf("refused: redirect to %s (%s)", e.redirect, e.kind)
	}
	return fmt.Sprintf("refused: redirect to %s (%s)", e.redirect, e.detail())
}

func withArticle(s string) string {
	if s != "" && strings.ContainsRune("aeiouAEIOU", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

// guard holds the address policy for one tool instance.
type guard struct {
	// allow may let through an address the built-in policy refuses.
	allow func(netip.Addr) bool
	// resolve, when set, replaces DNS for host names.
	resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	dialer  net.Dialer
	// allowNames and allowNets are Options.AllowHosts; open dials the
	// listed names, checking only the network.
	allowNames map[string]bool
	allowNets  []netip.Prefix
	open       net.Dialer
}

func newGuard(opts Options) (*guard, error) {
	g := &guard{allow: opts.AllowAddr, resolve: opts.Resolve, allowNames: map[string]bool{}}
	for _, h := range opts.AllowHosts {
		name, nets, err := ParseAllowHost(h)
		if err != nil {
			return nil, err
		}
		if name != "" {
			g.allowNames[name] = true
		}
		g.allowNets = append(g.allowNets, nets...)
	}
	g.dialer = net.Dialer{Timeout: 10 * time.Second, Control: g.control}
	g.open = net.Dialer{Timeout: 10 * time.Second, Control: tcpOnly}
	return g, nil
}

// ParseAllowHost reads one entry of tools.web_fetch.allow_hosts: a CIDR
// prefix, an address (a prefix of one), or a host name (lower case,
// without a trailing dot). A name the policy refuses by name, or a prefix
// that would open everything (0.0.0.0/0, ::/0), is an error.
func ParseAllowHost(s string) (name string, nets []netip.Prefix, err error) {
	s = strings.TrimSpace(s)
	if p, err := netip.ParsePrefix(s); err == nil {
		if p.Bits() == 0 {
			return "", nil, fmt.Errorf("web_fetch: %q would allow every address", s)
		}
		return "", []netip.Prefix{p.Masked()}, nil
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return "", []netip.Prefix{netip.PrefixFrom(a.WithZone(""), a.BitLen())}, nil
	}
	name = strings.TrimSuffix(strings.ToLower(s), ".")
	if !validHostName(name) {
		return "", nil, fmt.Errorf("web_fetch: %q is not a host name, an address or a CIDR prefix", s)
	}
	if kind := classifyName(name); kind != "" {
		return "", nil, fmt.Errorf("web_fetch: %q is a %s, which is never fetched", s, kind)
	}
	return name, nil, nil
}

// validHostName reports whether s is a DNS name: labels of letters,
// digits and hyphens, not starting or ending with one.
func validHostName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}

// tcpOnly is the dial check of a listed name: any address, TCP alone.
func tcpOnly(network, _ string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return fmt.Errorf("refused: network %s is not allowed", network)
	}
	return nil
}

// transport returns an http.Transport whose every connection passes the
// guard.
func (g *guard) transport() *http.Transport {
	return &http.Transport{
		// No proxy, deliberately: through a proxy we would dial (and check)
		// the proxy's address while the proxy fetches whatever we ask, so
		// HTTP_PROXY in the environment would switch the guard off.
		Proxy:                  nil,
		DialContext:            g.dialContext,
		ForceAttemptHTTP2:      true, // a custom DialContext disables HTTP/2 unless asked
		TLSHandshakeTimeout:    10 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
		MaxIdleConns:           8,
		IdleConnTimeout:        30 * time.Second,
	}
}

// checkAddr applies the policy to one address.
func (g *guard) checkAddr(a netip.Addr) error {
	a = a.WithZone("")
	kind := classifyAddr(a)
	if kind == "" {
		return nil
	}
	if g.allow != nil && g.allow(a) {
		return nil
	}
	for _, p := range g.allowNets {
		if p.Contains(a) {
			return nil
		}
	}
	return &refusedError{addr: a, kind: kind}
}

// checkHost refuses a URL host before any dial when the answer is already
// known: a refused name, or an address literal.
func (g *guard) checkHost(host string) error {
	if a, err := netip.ParseAddr(host); err == nil {
		return g.checkAddr(a)
	}
	if kind := classifyName(host); kind != "" {
		return &refusedError{host: host, kind: kind}
	}
	return nil
}

// control runs after DNS resolution, on the exact address about to be
// connected, for every dial attempt (each Happy Eyeballs candidate, each
// redirect hop, each new pooled connection).
func (g *guard) control(network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return fmt.Errorf("refused: network %s is not allowed", network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refused: cannot parse dialed address %q: %w", address, err)
	}
	return g.checkAddr(ap.Addr())
}

// dialContext refuses blocked host names (the only place a dial still sees
// the name), resolves through the test hook when one is set, and leaves
// the address check to control.
func (g *guard) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
	}
	if kind := classifyName(host); kind != "" {
		return nil, &refusedError{host: host, kind: kind}
	}
	dialer := &g.dialer
	if g.allowNames[strings.TrimSuffix(strings.ToLower(host), ".")] {
		dialer = &g.open // listed by the operator: its addresses are meant
	}
	if _, err := netip.ParseAddr(host); err == nil || g.resolve == nil {
		conn, err := dialer.DialContext(ctx, network, address)
		return conn, nameRefusal(err, host)
	}
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	var first error
	for _, a := range addrs {
		conn, err := dialer.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return conn, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, nameRefusal(first, host)
}

// nameRefusal records which name led to a refused address, so the model
// learns that the name, not the URL's form, was the problem.
func nameRefusal(err error, host string) error {
	if re, ok := errors.AsType[*refusedError](err); ok && re.host == "" {
		if _, perr := netip.ParseAddr(host); perr != nil {
			re.host = host
		}
	}
	return err
}

// classifyName returns why a host name is refused outright, or "". These
// names are special-cased by resolvers (localhost never reaches DNS) or
// exist only inside clouds, so refusing by name is both clearer and safe.
func classifyName(host string) string {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	switch {
	case h == "localhost" || strings.HasSuffix(h, ".localhost") ||
		h == "localhost.localdomain" || h == "ip6-localhost" || h == "ip6-loopback":
		return "loopback host name"
	case h == "metadata.google.internal" || h == "metadata.goog" || h == "metadata" ||
		h == "instance-data" || h == "instance-data.ec2.internal" || h == "metadata.azure.internal":
		return "cloud metadata host name"
	}
	return ""
}

// classifyAddr returns why an address is refused, or "" when it may be
// dialed. Only globally routable unicast passes; written as comparisons on
// the bytes so the policy is plain code with no shared tables.
func classifyAddr(a netip.Addr) string {
	if a.Is4() || a.Is4In6() {
		// ::ffff:127.0.0.1 reaches 127.0.0.1 on dual-stack sockets.
		return classify4(a.Unmap().As4())
	}
	return classify6(a.As16())
}

func classify4(b [4]byte) string {
	switch {
	case b == [4]byte{}:
		return "unspecified address"
	case b[0] == 0: // 0.0.0.0/8: Linux treats these as this host
		return "this-network address"
	case b[0] == 10: // 10.0.0.0/8
		return "private address"
	case b[0] == 100 && b[1]&0xc0 == 64: // 100.64.0.0/10, also Alibaba's metadata 100.100.100.200
		return "carrier-grade NAT (shared) address"
	case b[0] == 127: // 127.0.0.0/8
		return "loopback address"
	case b[0] == 169 && b[1] == 254: // 169.254.0.0/16, incl. 169.254.169.254 cloud metadata
		return "link-local address"
	case b[0] == 172 && b[1]&0xf0 == 16: // 172.16.0.0/12
		return "private address"
	case b[0] == 192 && b[1] == 0 && b[2] == 0: // 192.0.0.0/24, incl. Oracle's metadata 192.0.0.192
		return "IETF protocol assignment address"
	case b[0] == 192 && b[1] == 0 && b[2] == 2, // 192.0.2.0/24
		b[0] == 198 && b[1] == 51 && b[2] == 100, // 198.51.100.0/24
		b[0] == 203 && b[1] == 0 && b[2] == 113:  // 203.0.113.0/24
		return "documentation address"
	case b[0] == 192 && b[1] == 88 && b[2] == 99: // 192.88.99.0/24
		return "6to4 relay anycast address"
	case b[0] == 192 && b[1] == 168: // 192.168.0.0/16
		return "private address"
	case b[0] == 198 && b[1]&0xfe == 18: // 198.18.0.0/15
		return "benchmarking address"
	case b == [4]byte{255, 255, 255, 255}:
		return "broadcast address"
	case b[0] >= 240: // 240.0.0.0/4
		return "reserved address"
	case b[0] >= 224: // 224.0.0.0/4
		return "multicast address"
	}
	return ""
}

func classify6(b [16]byte) string {
	var zero [16]byte
	loop := [16]byte{15: 1}
	switch {
	case b == zero:
		return "unspecified address"
	case b == loop:
		return "loopback address"
	case b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && allZero(b[4:12]):
		// 64:ff9b::/96 NAT64 reaches the embedded IPv4 address; a public
		// one is fine (IPv6-only networks), a private one is not.
		v4 := [4]byte(b[12:16])
		if kind := classify4(v4); kind != "" {
			return fmt.Sprintf("%s (NAT64 of %s)", kind, netip.AddrFrom4(v4))
		}
		return ""
	case b[0]&0xfe == 0xfc: // fc00::/7 unique local
		return "private address"
	case b[0] == 0xfe && b[1]&0xc0 == 0x80: // fe80::/10
		return "link-local address"
	case b[0] == 0xfe && b[1]&0xc0 == 0xc0: // fec0::/10, deprecated but still routed locally
		return "site-local address"
	case b[0] == 0xff: // ff00::/8
		return "multicast address"
	case b[0]&0xe0 != 0x20:
		// Outside 2000::/3 nothing is global unicast: this covers the
		// IPv4-compatible ::a.b.c.d, local-use NAT64 64:ff9b:1::/48,
		// discard 100::/64 and everything unassigned.
		return "reserved address"
	case b[0] == 0x20 && b[1] == 0x02: // 2002::/16 6to4 embeds an IPv4 address
		v4 := [4]byte(b[2:6])
		if kind := classify4(v4); kind != "" {
			return fmt.Sprintf("%s (6to4 of %s)", kind, netip.AddrFrom4(v4))
		}
		return ""
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x00 && b[3] == 0x00: // 2001::/32
		// Teredo hides the client's IPv4 address (XORed); nothing to fetch there.
		return "Teredo address"
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8, // 2001:db8::/32
		b[0] == 0x3f && b[1] == 0xff && b[2]&0xf0 == 0x00: // 3fff::/20
		return "documentation address"
	case b[0] == 0x20 && b[1] == 0x01 && b[2]&0xfe == 0x00: // 2001::/23
		return "IETF protocol assignment address"
	}
	return ""
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
