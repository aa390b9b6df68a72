package shell

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// tools.shell.network: public
//
// Why a proxy: what a command may reach must be decided by the address
// it really connects to. Landlock (ABI 4+) restricts TCP by port only;
// seccomp cannot read a connect() call's address; a seccomp user
// notification can, but letting the call continue re-reads the address
// from the command's memory, which another of its threads may have
// changed meanwhile. So the command stays in its empty namespace, and
// the one way out is an HTTP proxy on the namespace's 127.0.0.1 that the
// supervisor, outside, serves: it resolves the name itself and checks
// each address as it dials (net.Dialer.Control), so neither a name that
// resolves to 127.0.0.1 nor DNS rebinding gets through. Programs that
// honour HTTP_PROXY / HTTPS_PROXY work (curl, wget, git over HTTPS, pip,
// go, npm); ssh, raw TCP and UDP get nowhere, not even to public hosts.

// proxyPort is where the proxy listens in the command's namespace (its
// own 127.0.0.1; nothing else can listen there before the command runs).
const proxyPort = 3128

// proxyFD is, in the confine stage, the socket it hands the proxy's
// listener to the supervisor through.
const proxyFD = 4

// proxyURL is what the proxy variables say.
func proxyURL() string { return fmt.Sprintf("http://127.0.0.1:%d", proxyPort) }

// proxyEnv are the variables that point programs at the proxy, in both
// spellings programs read.
func proxyEnv() []string {
	u := proxyURL()
	return []string{"HTTP_PROXY=" + u, "HTTPS_PROXY=" + u, "http_proxy=" + u, "https_proxy=" + u,
		"ALL_PROXY=" + u, "all_proxy=" + u, "NO_PROXY=", "no_proxy="}
}

// isProxyVar reports whether name is one of the proxy variables, which an
// operator's tools.shell env allowlist must not override in public mode.
func isProxyVar(name string) bool {
	switch strings.ToLower(name) {
	case "http_proxy", "https_proxy", "all_proxy", "no_proxy":
		return true
	}
	return false
}

// refusedPrefixes are what public mode never connects to, besides what
// netip classifies (loopback, private, link-local, multicast,
// unspecified): shared address space (CGNAT, where Alibaba's metadata
// lives), the IETF and benchmarking blocks (Oracle's metadata is in
// 192.0.0.0/24), documentation and reserved ranges, and the IPv6 ranges
// that carry or translate other addresses.
var refusedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001::/32"), // Teredo
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("fec0::/10"),
}

// publicAddr reports whether public mode may connect to a. Addresses
// that embed an IPv4 address (mapped, NAT64, 6to4) are judged by it.
func publicAddr(a netip.Addr) bool {
	a = a.Unmap()
	if a.Is6() {
		b := a.As16()
		switch {
		case netip.MustParsePrefix("64:ff9b::/96").Contains(a):
			return publicAddr(netip.AddrFrom4([4]byte(b[12:16])))
		case netip.MustParsePrefix("2002::/16").Contains(a):
			return publicAddr(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	if !a.IsValid() || a.IsUnspecified() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() ||
		a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() || a.IsMulticast() {
		return false
	}
	for _, p := range refusedPrefixes {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// refusedError is a connection public mode does not make.
type refusedError struct{ addr string }

func (e refusedError) Error() string {
	return "tools.shell.network is public: " + e.addr + " is not a public address (loopback, private, " +
		"link-local and cloud metadata addresses are refused)"
}

// proxy is the public mode's proxy. permit decides each address; tests
// open it to 127.0.0.1 to see the forwarding work.
type proxy struct {
	permit  func(netip.Addr) bool
	timeout time.Duration
}

// dial connects to addr, checking the address every attempt really
// dials, after name resolution.
func (p *proxy) dial(ctx context.Context, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: p.timeout, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || !p.permit(ap.Addr()) {
			return refusedError{address}
		}
		return nil
	}}
	return d.DialContext(ctx, "tcp", addr)
}

// serve accepts the command's connections until ln is closed.
func (p *proxy) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go p.handle(c)
	}
}

// handle serves one connection: a CONNECT tunnel (HTTPS, and anything
// else a client tunnels) or one plain HTTP request.
func (p *proxy) handle(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	ctx := context.Background()
	if req.Method == http.MethodConnect {
		up, err := p.dial(ctx, req.Host)
		if err != nil {
			refuse(c, err)
			return
		}
		defer up.Close()
		io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
		done := make(chan struct{})
		go func() {
			io.Copy(up, br) // whatever the client sent after the request, then the rest
			if tc, ok := up.(*net.TCPConn); ok {
				tc.CloseWrite()
			}
			close(done)
		}()
		io.Copy(c, up)
		c.Close()
		<-done
		return
	}
	if req.URL.Scheme != "http" || req.URL.Host == "" {
		refuse(c, errors.New("only absolute http:// requests and CONNECT are proxied"))
		return
	}
	t := &http.Transport{DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) { return p.dial(ctx, addr) },
		DisableKeepAlives: true, Proxy: nil}
	defer t.CloseIdleConnections()
	req.RequestURI = ""
	req.Header.Del("Proxy-Connection")
	req.Header.Del("Proxy-Authorization")
	resp, err := t.RoundTrip(req)
	if err != nil {
		refuse(c, err)
		return
	}
	defer resp.Body.Close()
	resp.Close = true
	resp.Write(c)
}

// refuse answers 403 with the reason, which the command's program shows.
func refuse(c net.Conn, err error) {
	msg := "parley sandbox: " + err.Error() + "\n"
	fmt.Fprintf(c, "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(msg), msg)
}

// listenProxy runs in the confine stage, inside the namespace with its
// loopback up: it opens the proxy's listener there and hands it to the
// supervisor over proxyFD.
func listenProxy() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("proxy socket: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: proxyPort, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return fmt.Errorf("proxy bind: %w", err)
	}
	if err := unix.Listen(fd, 64); err != nil {
		return fmt.Errorf("proxy listen: %w", err)
	}
	if err := unix.Sendmsg(proxyFD, []byte{0}, unix.UnixRights(fd), nil, 0); err != nil {
		return fmt.Errorf("hand the proxy to the supervisor: %w", err)
	}
	return unix.Close(proxyFD)
}

// receiveProxy runs in the supervisor: it waits for the listener the
// confine stage opened and serves it. An EOF means the confine stage
// failed before (it reports why on the status pipe).
func receiveProxy(sock *os.File) error {
	defer sock.Close()
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := unix.Recvmsg(int(sock.Fd()), make([]byte, 1), oob, 0)
	if err != nil {
		return fmt.Errorf("receive the proxy listener: %w", err)
	}
	if n == 0 && oobn == 0 {
		return nil // the confine stage failed first and reports why
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return errors.New("receive the proxy listener: no descriptor")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return errors.New("receive the proxy listener: no descriptor")
	}
	f := os.NewFile(uintptr(fds[0]), "proxy")
	ln, err := net.FileListener(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("proxy listener: %w", err)
	}
	p := &proxy{permit: publicAddr, timeout: 30 * time.Second}
	go p.serve(ln)
	return nil
}
