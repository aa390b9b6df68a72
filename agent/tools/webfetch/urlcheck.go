package webfetch

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// maxURLLen bounds what we parse and later echo back in errors.
const maxURLLen = 4096

// parseURL is the up-front check on what the model wrote. It rejects what
// can never be fetched (other schemes, credentials) and host spellings
// that different parsers read differently (2130706433, 0x7f.1, 0177.0.0.1,
// 127.1 all mean 127.0.0.1 to inet_aton), so that what we check is what we
// dial. The guard still checks every dialed address; this only gives the
// model a clear error before any network traffic.
func parseURL(raw string) (*url.URL, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil, errors.New("invalid URL: empty")
	}
	if len(s) > maxURLLen {
		return nil, fmt.Errorf("invalid URL: %d bytes long, the limit is %d", len(s), maxURLLen)
	}
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error repeats the whole URL; the model has it
		}
		return nil, fmt.Errorf("invalid URL: %w", err)
	}
	out, err := checkURL(u)
	if err != nil {
		return nil, err
	}
	// Escaping can triple the length; bound what is actually requested.
	if n := len(out.String()); n > maxURLLen {
		return nil, fmt.Errorf("invalid URL: %d bytes long once escaped, the limit is %d", n, maxURLLen)
	}
	return out, nil
}

// checkURL validates a parsed URL (the model's, or a redirect target) and
// returns a normalized copy: lower-case scheme and host, IDN in ASCII, no
// fragment.
func checkURL(u *url.URL) (*url.URL, error) {
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme == "":
		return nil, errors.New("invalid URL: no scheme; write it as https://host/path")
	case scheme != "http" && scheme != "https":
		return nil, fmt.Errorf("unsupported URL scheme %q: only http and https URLs can be fetched", scheme)
	case u.Opaque != "":
		return nil, errors.New("invalid URL: expected scheme://host/path")
	case u.User != nil:
		return nil, errors.New("URLs with credentials (user:pass@host) are not allowed")
	}
	host, err := checkHostSyntax(u.Hostname())
	if err != nil {
		return nil, err
	}
	out := *u
	out.Scheme = scheme
	out.Fragment, out.RawFragment = "", ""
	out.RawQuery = escapeQuery(u.RawQuery)
	out.Host = host
	if strings.Contains(host, ":") {
		out.Host = "[" + host + "]"
	}
	if port := u.Port(); port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("invalid URL: bad port %q", port)
		}
		out.Host += ":" + strconv.Itoa(n) // drops leading zeros
	}
	return &out, nil
}

// checkHostSyntax validates a URL host and returns it normalized. It does
// not decide whether the host is allowed; the guard does.
func checkHostSyntax(host string) (string, error) {
	if host == "" {
		return "", errors.New("invalid URL: no host")
	}
	if strings.Contains(host, ":") { // only IPv6 literals contain colons
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() {
			return "", fmt.Errorf("invalid URL: bad IPv6 address %q", host)
		}
		if a.Zone() != "" {
			return "", fmt.Errorf("invalid URL: IPv6 zone in %q is not allowed", host)
		}
		return a.String(), nil
	}
	h := host
	if !isASCII(h) {
		// The HTTP client would map this through IDNA anyway; doing it here
		// means we validate the name that is actually looked up (full-width
		// "１２７.０.０.１" maps to 127.0.0.1).
		a, err := idna.Lookup.ToASCII(h)
		if err != nil {
			return "", fmt.Errorf("invalid URL: bad host name %q: %w", host, err)
		}
		h = a
	}
	h = strings.ToLower(h)
	name := strings.TrimSuffix(h, ".")
	if name == "" || len(name) > 253 {
		return "", fmt.Errorf("invalid URL: bad host name %q", host)
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || !validLabel(l) {
			return "", fmt.Errorf("invalid URL: bad host name %q", host)
		}
	}
	// By the URL standard a host whose last label is numeric is an IPv4
	// address, in whatever base and shorthand inet_aton accepts. Accept only
	// the canonical dotted-decimal form so there is one reading.
	if last := labels[len(labels)-1]; isNumericLabel(last) {
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is4() {
			return "", fmt.Errorf("invalid URL: ambiguous numeric host %q; write IPv4 addresses as four decimal numbers (a.b.c.d)", host)
		}
		return a.String(), nil
	}
	return h, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// validLabel allows letters, digits, '-' and '_' (seen in real hostnames
// although not in the DNS host rules).
func validLabel(l string) bool {
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// isNumericLabel reports whether the URL standard's IPv4 parser would treat
// the label as a number: decimal digits, or 0x followed by hex digits.
func isNumericLabel(l string) bool {
	if strings.HasPrefix(l, "0x") {
		for i := 2; i < len(l); i++ {
			c := l[i]
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(l); i++ {
		if l[i] < '0' || l[i] > '9' {
			return false
		}
	}
	return l != ""
}

// escapeQuery percent-encodes the bytes browsers encode in a query (space,
// quotes, angle brackets, non-ASCII …). url.Parse keeps RawQuery verbatim,
// and a raw space would end the request line early.
func escapeQuery(q string) string {
	const hex = "0123456789ABCDEF"
	needs := func(c byte) bool {
		return c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0
	}
	if !strings.ContainsFunc(q, func(r rune) bool { return r > 0x7f || r < 0x80 && needs(byte(r)) }) {
		return q
	}
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		if c := q[i]; needs(c) {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
