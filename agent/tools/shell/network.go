package shell

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Network is what a command may reach (tools.shell.network).
//
// An approved command used to get the host's whole network: the model
// server on 127.0.0.1, a cloud host's credentials on 169.254.169.254,
// every intranet service. Now, by default, the confine stage starts in a
// network namespace of its own, which holds nothing but its own loopback
// interface: there is no route anywhere, so nothing on the host or beyond
// it can be reached, and a server the command starts on 127.0.0.1 is
// another 127.0.0.1 than the host's.
type Network string

// The network modes.
const (
	// NetworkNone (the default): an empty network namespace. Only the
	// namespace's own loopback works.
	NetworkNone Network = "none"
	// NetworkPublic: the same empty namespace, plus an HTTP proxy at
	// 127.0.0.1:proxyPort inside it (HTTP_PROXY, HTTPS_PROXY) that the
	// supervisor serves from outside and that connects only to public
	// addresses (proxy.go). Programs that honour the proxy variables
	// (curl, wget, git, pip, go, npm) reach the public internet; nothing
	// else gets out at all, so no address check can be bypassed with a
	// raw socket.
	NetworkPublic Network = "public"
	// NetworkAll: the host's network, as before namespaces (loopback,
	// link-local and cloud metadata included). doctor warns about it.
	NetworkAll Network = "all"
)

// ParseNetwork checks a tools.shell.network value; "" is the default.
func ParseNetwork(s string) (Network, error) {
	switch n := Network(s); n {
	case "":
		return NetworkNone, nil
	case NetworkNone, NetworkPublic, NetworkAll:
		return n, nil
	}
	return "", fmt.Errorf("network %q is not valid; want none, public or all", s)
}

// isolated reports whether the mode needs a network namespace.
func (n Network) isolated() bool { return n != NetworkAll }

// How the supervisor creates the command's network namespace.
const (
	// netnsPlain: CLONE_NEWNET alone, which needs CAP_SYS_ADMIN (Parley
	// running as root outside a restricted container).
	netnsPlain = "netns"
	// netnsUser: CLONE_NEWUSER|CLONE_NEWNET, a user namespace mapping
	// only Parley's own uid and gid, which any user may create where the
	// kernel allows unprivileged user namespaces. It owns the network
	// namespace, so the confine stage may bring its loopback up.
	netnsUser = "userns+netns"
)

// probeNetArg makes the binary act as the namespace probe: bring the
// loopback up and exit 0.
const probeNetArg = "__parley-shell-probe-net"

// netnsMethod finds out how this host can give a command its own network
// namespace, or "" where it cannot (no CAP_SYS_ADMIN and no unprivileged
// user namespaces: a container's default seccomp profile, a sysctl, an
// AppArmor policy). It really starts the probe stage in each kind of
// namespace, since only doing it shows whether every step is permitted.
func netnsMethod() string {
	for _, m := range []string{netnsPlain, netnsUser} {
		if m == netnsPlain && os.Geteuid() != 0 {
			continue // CLONE_NEWNET alone needs CAP_SYS_ADMIN
		}
		attr := &syscall.ProcAttr{Files: []uintptr{0, 1, 2}, Sys: namespaceAttr(m, &syscall.SysProcAttr{})}
		pid, err := syscall.ForkExec(selfExe, []string{"parley-sandbox", probeNetArg, "{}"}, attr)
		if err != nil {
			continue
		}
		var ws syscall.WaitStatus
		for {
			_, err = syscall.Wait4(pid, &ws, 0, nil)
			if err != syscall.EINTR {
				break
			}
		}
		if err == nil && ws.Exited() && ws.ExitStatus() == 0 {
			return m
		}
	}
	return ""
}

// namespaceAttr adds the clone flags of method m to attr.
func namespaceAttr(m string, attr *syscall.SysProcAttr) *syscall.SysProcAttr {
	switch m {
	case netnsPlain:
		attr.Cloneflags = syscall.CLONE_NEWNET
	case netnsUser:
		attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
		// The command keeps its uid and gid: files it writes belong to
		// Parley's user as before, and nobody else is mapped.
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
	return attr
}

// probeNet is the probe stage.
func probeNet() int {
	if err := loopbackUp(); err != nil {
		return 1
	}
	return 0
}

// loopbackUp brings the namespace's loopback interface up, so programs
// that talk to themselves over 127.0.0.1 keep working (and the public
// mode's proxy can listen there). It needs CAP_NET_ADMIN over the
// namespace, which the confine stage has until it drops its capabilities.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	ifr.SetUint16(unix.IFF_UP | unix.IFF_LOOPBACK | unix.IFF_RUNNING)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring the loopback up: %w", err)
	}
	return nil
}

// closeInherited marks every descriptor above stderr close-on-exec, so
// the shell inherits stdin, stdout and stderr and nothing else. Go opens
// its own files close-on-exec, but a descriptor Parley itself inherited
// without the flag (a pipe from whatever started it, a socket passed by a
// service manager) would otherwise travel through both stages into the
// command. Marking rather than closing leaves the Go runtime's own
// descriptors working until the execve.
func closeInherited() error {
	if err := unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return nil
	}
	// Before Linux 5.11 close_range has no CLOEXEC flag: go through the
	// list of open descriptors instead.
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("list open files: %w", err)
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		// EBADF: the directory's own descriptor, closed by now.
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && err != unix.EBADF {
			return fmt.Errorf("close inherited file %d: %w", fd, err)
		}
	}
	return nil
}
