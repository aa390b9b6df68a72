package shell

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
)

// hostServer serves a fixed answer on addr ("127.0.0.1:0", or a host
// address) in this test process, i.e. in the host's network, the way the
// model server listened on 127.0.0.1 when an approved command reached it.
func hostServer(t *testing.T, addr string) string {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("listen on %s: %v", addr, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "answer-from-the-host")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// hostAddress is one of this host's own non-loopback IPv4 addresses, ""
// if it has none.
func hostAddress() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	return ""
}

// networkTool is a tool with the given mode and, for the isolated modes,
// the given way of making the namespace; it skips where the host cannot.
func networkTool(t *testing.T, mode Network, netns string) *tool {
	t.Helper()
	tl := newTool(t, func(o *Options) { o.Network = mode })
	p := &tl.settings.sandbox.protection
	if mode.isolated() {
		if p.NetNS == "" {
			t.Skip("this host cannot create network namespaces")
		}
		p.NetNS = netns
	}
	return tl
}

// TestNetworkModes: a command reaches a server on the host's loopback
// (and on its own address) only when tools.shell.network is all.
func TestNetworkModes(t *testing.T) {
	targets := []string{hostServer(t, "127.0.0.1:0")}
	if a := hostAddress(); a != "" {
		targets = append(targets, hostServer(t, net.JoinHostPort(a, "0")))
	}
	tests := []struct {
		name    string
		mode    Network
		netns   string
		reaches bool
	}{
		{"none", NetworkNone, netnsPlain, false},
		{"none in a user namespace", NetworkNone, netnsUser, false},
		{"public, proxy bypassed", NetworkPublic, netnsPlain, false},
		{"all", NetworkAll, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := networkTool(t, tt.mode, tt.netns)
			for _, target := range targets {
				// --noproxy: a direct connection, as a raw socket would make.
				cmd := "curl -sS --noproxy '*' --max-time 5 http://" + target + "/"
				out, err := call(t, tl, "s1", cmd)
				if err != nil {
					t.Fatalf("%s: %v", cmd, err)
				}
				if got := strings.Contains(out, "answer-from-the-host"); got != tt.reaches {
					t.Errorf("%s reached the host's server: %v, want %v; output %q", cmd, got, tt.reaches, out)
				}
			}
		})
	}
}

// TestOwnLoopbackWorks: in its namespace a command can still talk to
// itself over 127.0.0.1 (a test server, a build's local cache).
func TestOwnLoopbackWorks(t *testing.T) {
	for _, netns := range []string{netnsPlain, netnsUser} {
		t.Run(netns, func(t *testing.T) {
			tl := networkTool(t, NetworkNone, netns)
			// One interface, lo, up and addressed: only the namespace's own.
			out := mustCall(t, tl, "s1", "ip -o link; ip -o addr; grep -c : /proc/net/dev")
			for _, want := range []string{"lo: <LOOPBACK,UP", "inet 127.0.0.1/8", "\n1\n"} {
				if !strings.Contains(out, want) {
					t.Errorf("output %q, want %q", out, want)
				}
			}
		})
	}
}

// TestInheritedDescriptorsClosed: a descriptor Parley inherited without
// close-on-exec (here a pipe of this test process, which the supervisor
// inherits exactly as it would inherit Parley's) does not reach the
// command.
func TestInheritedDescriptorsClosed(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	// As a pipe from whatever started Parley would be: no FD_CLOEXEC.
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, w.Fd(), syscall.F_SETFD, 0); errno != 0 {
		t.Fatal(errno)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(w.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	pipe := fmt.Sprintf("pipe:[%d]", st.Ino)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			if m.name == "sandboxed" {
				requireLandlock(t)
			}
			tl := newTool(t, nil)
			tl.settings.sandbox.protection = m.protection(tl.settings.sandbox.protection)
			out := mustCall(t, tl, "s1", fmt.Sprintf("ls -l /proc/$$/fd/; echo leaked >&%d && echo wrote", w.Fd()))
			if strings.Contains(out, pipe) || strings.Contains(out, "wrote") {
				t.Errorf("the command sees the inherited pipe %s (fd %d):\n%s", pipe, w.Fd(), out)
			}
			// Only stdin, stdout and stderr are open.
			for _, line := range strings.Split(out, "\n") {
				if f := strings.Fields(line); len(f) > 2 && f[len(f)-2] == "->" {
					if n := f[len(f)-3]; n != "0" && n != "1" && n != "2" {
						t.Errorf("the shell has fd %s open: %s", n, line)
					}
				}
			}
		})
	}
}

// TestPublicModeProxy: in public mode the command's way out is the
// sandbox's proxy, and the proxy does not connect to the host's
// loopback, whether asked by address or tunnelled.
func TestPublicModeProxy(t *testing.T) {
	target := hostServer(t, "127.0.0.1:0")
	tl := networkTool(t, NetworkPublic, netnsPlain)
	for _, cmd := range []string{
		"curl -sS --max-time 5 http://" + target + "/",
		"curl -sS --max-time 5 -p http://" + target + "/",                               // CONNECT
		"curl -sS --max-time 5 http://localhost:" + strings.Split(target, ":")[1] + "/", // a name for it
		"curl -sS --max-time 5 http://169.254.169.254/latest/meta-data/",
	} {
		out, err := call(t, tl, "s1", "echo $HTTPS_PROXY; "+cmd)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if strings.Contains(out, "answer-from-the-host") || !strings.Contains(out, "http://127.0.0.1:3128") {
			t.Errorf("%s: %q, want the proxy set and the host's server out of reach", cmd, out)
		}
		if !strings.Contains(out, "not a public address") && !strings.Contains(out, "403") {
			t.Errorf("%s: %q, want the proxy's refusal", cmd, out)
		}
	}
}
