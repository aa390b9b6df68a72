package shell

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// How a command is confined
//
// Parley never runs a command itself. It re-executes its own binary
// (/proc/self/exe) twice, so that nothing it does to confine a command
// touches Parley:
//
//	parley                                  (unconfined, non-dumpable)
//	└─ parley __parley-shell-supervise      supervise.go: child subreaper, watchdog, tree killer
//	   └─ parley __parley-shell-confine     confine.go: rlimits, capabilities, no_new_privs, Landlock
//	      = /bin/sh -c <command>            (execve replaces the confine stage)
//
// Why re-exec rather than confining a locked OS thread right before
// os/exec forks: Landlock, no_new_privs and capabilities are per thread
// and inherited across fork, but rlimits and the child-subreaper flag are
// per process, and Go cannot run code between fork and exec (os/exec
// gains a Landlock field only in Go 1.28). Restricting a Parley thread
// would also leave a poisoned thread the runtime must never reuse. A
// fresh, single-purpose process that restricts its own thread and then
// calls execve is the pattern go-landlock documents for "enforce, then
// exec" (Config.NewRulesetFD), and every step in it is process-wide or
// done on the one thread that execs.
//
// The supervisor stays outside the sandbox so that the command cannot
// signal it (Landlock scopes signals from ABI 6) or read it, and it is
// the child subreaper of everything the command starts: a process that
// calls setsid or double-forks is reparented to it, never to init, so it
// can kill and reap the whole tree when the shell exits, on timeout, on
// cancellation and when the process limit is exceeded.

// Arguments that make the Parley binary act as one of the two stages.
const (
	superviseArg = "__parley-shell-supervise"
	confineArg   = "__parley-shell-confine"
)

// selfExe is re-executed for both stages: always the running binary, even
// after an upgrade replaced the file on disk.
const selfExe = "/proc/self/exe"

// DefaultReadOnlyPaths returns what a sandboxed command may read and
// execute besides its workspace: the system's programs, libraries and
// configuration, and /proc (other processes' secrets there stay out of
// reach: Landlock forbids ptrace-class access, which /proc/<pid>/environ
// and mem need, to any process outside the sandbox). Missing paths are
// skipped.
func DefaultReadOnlyPaths() []string {
	return []string{
		"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc",
		// Where systemd-resolved hosts point /etc/resolv.conf.
		"/run/systemd/resolve",
	}
}

// devices returns the device files every command may read and write.
func devices() []string {
	return []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}
}

// MaybeRunSandbox turns this process into a sandbox stage if it was
// started as one, and then exits; otherwise it returns at once. The shell
// tool re-executes the Parley binary for its sandbox, so main must call
// this before anything else, and so must the TestMain of any test binary
// that runs shell commands.
func MaybeRunSandbox() {
	if len(os.Args) != 3 {
		return
	}
	// syscall.Exit rather than os.Exit: the stages have nothing to flush,
	// and os.Exit would run the race detector's exit hook, which sleeps
	// a second in race-enabled builds.
	switch os.Args[1] {
	case superviseArg:
		syscall.Exit(supervise(os.Args[2]))
	case confineArg:
		syscall.Exit(confine(os.Args[2]))
	case probeNetArg:
		syscall.Exit(probeNet())
	}
}

// Protection says how the shell tool confines commands on this host.
type Protection struct {
	// LandlockABI is the kernel's usable Landlock ABI version, 0 where
	// Landlock is missing or disabled.
	LandlockABI int
	// Unsandboxed is the tools.shell.unsandboxed setting.
	Unsandboxed bool
	// Network is the tools.shell.network setting; "" means NetworkNone.
	Network Network
	// NetNS is how commands get their own network namespace on this
	// host (netnsPlain, netnsUser), "" where they cannot. Probed only
	// when Network needs one.
	NetNS string
}

// Probe reports the protection the shell tool gives commands on this
// host, given the tools.shell.unsandboxed and tools.shell.network
// settings. Where the network mode needs a namespace it starts a probe
// process or two (a few milliseconds).
func Probe(unsandboxed bool, network Network) Protection {
	if network == "" {
		network = NetworkNone
	}
	p := Protection{LandlockABI: landlockABI(), Unsandboxed: unsandboxed, Network: network}
	if network.isolated() {
		p.NetNS = netnsMethod()
	}
	return p
}

// Sandboxed reports whether commands run under Landlock.
func (p Protection) Sandboxed() bool { return p.LandlockABI > 0 }

// Refused reports whether the shell tool refuses every command: there is
// no Landlock and the operator has not allowed running without it, or the
// network mode needs a namespace this host cannot create. Either way the
// operator must lower the protection on purpose; the tool never does.
func (p Protection) Refused() bool {
	return (!p.Sandboxed() && !p.Unsandboxed) || p.networkRefused()
}

func (p Protection) networkRefused() bool { return p.network().isolated() && p.NetNS == "" }

func (p Protection) network() Network {
	if p.Network == "" {
		return NetworkNone
	}
	return p.Network
}

// Warning is what doctor should warn about although commands run: the
// host's whole network given to them.
func (p Protection) Warning() string {
	if p.network() == NetworkAll && !p.Refused() {
		return "tools.shell.network is all: commands reach everything this host can, loopback services " +
			"and cloud metadata (169.254.169.254) included"
	}
	return ""
}

func (p Protection) String() string {
	if p.networkRefused() {
		return fmt.Sprintf("refused: tools.shell.network is %s, but this host cannot give commands a network "+
			"namespace of their own (it needs root with CAP_SYS_ADMIN, or unprivileged user namespaces); set "+
			"tools.shell.network: all to run them with the host's network", p.network())
	}
	fs := p.filesystem()
	if p.Refused() {
		return fs
	}
	switch p.network() {
	case NetworkAll:
		return fs + "; network: all (the host's)"
	case NetworkPublic:
		return fs + "; network: public addresses only, through the sandbox's HTTP proxy (own namespace, " + p.NetNS + ")"
	}
	return fs + "; network: none (own namespace, " + p.NetNS + ")"
}

// filesystem describes the Landlock part of the protection.
func (p Protection) filesystem() string {
	switch {
	case p.Sandboxed():
		s := fmt.Sprintf("sandboxed (Landlock ABI %d)", p.LandlockABI)
		switch {
		case p.LandlockABI < 3:
			s += "; this ABI cannot deny truncating readable files or signalling Parley"
		case p.LandlockABI < 6:
			s += "; this ABI cannot deny signalling Parley's processes"
		}
		return s
	case p.Unsandboxed:
		return "unsandboxed by config (tools.shell.unsandboxed): no Landlock on this kernel, so commands can " +
			"read and write whatever Parley's user can; limits and process-tree cleanup still apply"
	}
	return "refused: no Landlock on this kernel (Linux 5.13+ with landlock in the lsm= list); " +
		"set tools.shell.unsandboxed: true to run commands without the filesystem sandbox"
}

// landlockABI is the Landlock ABI version the kernel offers, lowered the
// way go-landlock lowers it where a known erratum is unfixed, so that what
// doctor reports is what is enforced.
func landlockABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	if v >= 6 {
		if errata, err := ll.LandlockGetErrata(); err != nil || errata&0x2 == 0 {
			v = 5 // signal scoping is broken before erratum 2's fix
		}
	}
	return v
}

// sandboxSettings are the validated sandbox parts of Options.
type sandboxSettings struct {
	protection Protection
	limits     Limits
	readOnly   []string
	// hidden are Parley's own files and directories (data dir, config,
	// database) in absolute and symlink-resolved form: never reachable
	// from the sandbox, even below a read-only path.
	hidden     []string
	watchEvery time.Duration
}

func (o Options) sandboxSettings(dataDir string) (sandboxSettings, error) {
	l := Limits{
		CPUTime:   orDefault(o.Limits.CPUTime, DefaultCPUTime),
		Memory:    orDefault(o.Limits.Memory, DefaultMemory),
		FileSize:  orDefault(o.Limits.FileSize, DefaultFileSize),
		Processes: orDefault(o.Limits.Processes, DefaultProcesses),
	}
	switch {
	case l.CPUTime < time.Second:
		return sandboxSettings{}, fmt.Errorf("CPU time limit %s is too small (minimum 1s)", l.CPUTime)
	case l.Memory < 32<<20:
		// Below this not even the shell and coreutils start.
		return sandboxSettings{}, fmt.Errorf("memory limit %d bytes is too small (minimum 32 MiB)", l.Memory)
	case l.FileSize < 1<<20:
		return sandboxSettings{}, fmt.Errorf("file size limit %d bytes is too small (minimum 1 MiB)", l.FileSize)
	case l.Processes < 4:
		return sandboxSettings{}, fmt.Errorf("process limit %d is too small (minimum 4)", l.Processes)
	}
	readOnly := o.ReadOnlyPaths
	if readOnly == nil {
		readOnly = DefaultReadOnlyPaths()
	}
	for _, p := range readOnly {
		if !filepath.IsAbs(p) {
			return sandboxSettings{}, fmt.Errorf("read-only path %q is not absolute", p)
		}
	}
	var hidden []string
	for _, p := range append([]string{dataDir}, o.ProtectedPaths...) {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return sandboxSettings{}, fmt.Errorf("protected path %q: %w", p, err)
		}
		hidden = append(hidden, abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			hidden = append(hidden, real)
		}
	}
	network, err := ParseNetwork(string(o.Network))
	if err != nil {
		return sandboxSettings{}, err
	}
	return sandboxSettings{
		protection: Probe(o.Unsandboxed, network),
		limits:     l,
		readOnly:   readOnly,
		hidden:     hidden,
		watchEvery: watchEvery,
	}, nil
}

// spec is everything the two stages need to know, passed as JSON in
// their last argument. It holds no secret: it is visible in ps.
type spec struct {
	Shell     string `json:"shell"`
	Command   string `json:"command"`
	Workspace string `json:"workspace"`
	Landlock  bool   `json:"landlock"`
	// Network is the mode; NetNS how to create its namespace.
	Network  Network  `json:"network"`
	NetNS    string   `json:"netns,omitempty"`
	ReadOnly []string `json:"read_only"`
	Hidden   []string `json:"hidden"`
	Limits   Limits   `json:"limits"`
	// Space is the workspace budget and the disk floor (budget.go).
	Space spaceLimits `json:"space"`
	// Deadline is the supervisor's own timeout: a little longer than
	// Parley's, so it only fires when Parley is gone or stuck.
	Deadline   time.Duration `json:"deadline"`
	WatchEvery time.Duration `json:"watch_every"`
}

func parseSpec(arg string) (spec, error) {
	var sp spec
	if err := json.Unmarshal([]byte(arg), &sp); err != nil {
		return spec{}, fmt.Errorf("sandbox spec: %w", err)
	}
	return sp, nil
}

// refusal is returned for every call when the sandbox the configuration
// asks for cannot be given and the operator has not lowered it.
func refusal(p Protection) error {
	return errors.New("the shell tool is refused on this host: " + strings.TrimPrefix(p.String(), "refused: "))
}

// spec builds the stages' instructions for one call, or refuses it.
func (s *settings) spec(workspace, command string, timeout time.Duration) (spec, error) {
	p := s.sandbox.protection
	if p.Refused() {
		return spec{}, refusal(p) // checked before, but never run unconfined by mistake
	}
	limits := s.sandbox.limits
	// No single file may outgrow the whole workspace's budget.
	limits.FileSize = min(limits.FileSize, s.space.Budget)
	return spec{
		Space:      s.space,
		Shell:      s.shell,
		Command:    command,
		Workspace:  workspace,
		Landlock:   p.Sandboxed(),
		Network:    p.network(),
		NetNS:      p.NetNS,
		ReadOnly:   s.sandbox.readOnly,
		Hidden:     s.sandbox.hidden,
		Limits:     limits,
		Deadline:   timeout + s.grace,
		WatchEvery: s.sandbox.watchEvery,
	}, nil
}

// report is one JSON line the stages write to the status pipe (fd 3).
// The confine stage writes Error when it cannot set the sandbox up; the
// supervisor writes how the shell ended and whether it killed the tree.
type report struct {
	Exit   *int   `json:"exit,omitempty"`
	Signal int    `json:"signal,omitempty"`
	Killed string `json:"killed,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Why the supervisor killed a command's tree before the shell ended.
const (
	killedProcesses = "processes" // more than Limits.Processes alive
	killedTimeout   = "timeout"   // its own deadline passed
	killedStop      = "stop"      // Parley asked (timeout or cancellation)
)

// statusFD is the status pipe's descriptor in both stages.
const statusFD = 3

func writeReport(r report) {
	b, _ := json.Marshal(r) // a struct of plain fields cannot fail
	f := os.NewFile(statusFD, "status")
	f.Write(append(b, '\n')) // nothing to do if Parley stopped listening
}

// mergeReports reads every report line and keeps the fields set.
func mergeReports(data []byte) (report, error) {
	var out report
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var r report
		if err := dec.Decode(&r); err != nil {
			return out, fmt.Errorf("sandbox status: %w", err)
		}
		if r.Exit != nil {
			out.Exit = r.Exit
		}
		if r.Signal != 0 {
			out.Signal = r.Signal
		}
		if r.Killed != "" {
			out.Killed = r.Killed
		}
		if r.Error != "" {
			out.Error = r.Error
		}
	}
	return out, nil
}
