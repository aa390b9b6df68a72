package shell

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"
)

// Defaults and hard limits for Options.
const (
	DefaultTimeout   = 60 * time.Second
	DefaultMaxOutput = 16 << 10
	DefaultShell     = "/bin/sh"

	// CeilingTimeout bounds every call: a chat turn that waits longer than
	// this for one command is broken, whatever the configuration says.
	CeilingTimeout = 10 * time.Minute

	// killGrace is how long we wait, after asking the supervisor to stop,
	// for it to kill the command's tree and exit, and then for the output
	// pipe to close. The supervisor normally needs milliseconds; this only
	// bounds a broken one so it cannot hang the turn.
	killGrace = 2 * time.Second

	// watchEvery is how often the supervisor counts the command's
	// processes (see Limits.Processes).
	watchEvery = 100 * time.Millisecond
)

// Default resource limits (see Limits). They are per process except
// Processes, and generous enough for builds and scripting while stopping a
// runaway loop, a memory hog or a fork bomb long before the host suffers.
const (
	DefaultCPUTime   = 5 * time.Minute
	DefaultMemory    = 4 << 30
	DefaultFileSize  = 1 << 30
	DefaultProcesses = 256
)

// Limits bound what a command may consume. The zero value of each field
// means its default; there is no "unlimited".
type Limits struct {
	// CPUTime is the CPU time each process may use (RLIMIT_CPU; default
	// 5 min). Past it the process gets SIGXCPU, then SIGKILL.
	CPUTime time.Duration
	// Memory is the address space of each process in bytes (RLIMIT_AS;
	// default 4 GiB). Allocations past it fail. Runtimes that reserve
	// much more virtual memory than they use (some JVM and V8 builds)
	// need it raised.
	Memory int64
	// FileSize is the largest file a process may write, in bytes
	// (RLIMIT_FSIZE; default 1 GiB).
	FileSize int64
	// Processes is how many processes a command may have alive at once,
	// counting every descendant (default 256). The supervisor kills the
	// whole command when it sees more; where Parley does not run as root
	// the kernel also refuses forks past it (RLIMIT_NPROC, on top of the
	// user's other processes; root is exempt from RLIMIT_NPROC).
	Processes int
}

// Options configure the shell tool. The zero value of every field except
// DataDir means "use the default".
type Options struct {
	// DataDir is Parley's data directory; session workspaces live in
	// <DataDir>/workspace/<session id>. Required.
	DataDir string
	// Timeout is the per-call limit when the model does not ask for one
	// (default 60 s).
	Timeout time.Duration
	// MaxTimeout caps the timeout_seconds the model may ask for (default
	// and upper bound: CeilingTimeout).
	MaxTimeout time.Duration
	// MaxOutput caps the combined stdout+stderr returned to the model, in
	// bytes (default 16 KiB). Past it the head and tail are kept.
	MaxOutput int
	// Shell runs the command as `Shell -c command` (default /bin/sh).
	Shell string
	// ProtectedPaths are Parley's own files: its config file and its
	// database file(s) or directory. The wiring passes them; any command
	// that names one is refused.
	ProtectedPaths []string
	// ExtraEnv names environment variables the operator lets through from
	// Parley's environment (default none). Names that look secret and
	// names of Parley's or the LLM providers' settings are dropped anyway;
	// see env.go.
	ExtraEnv []string
	// Unsandboxed lets commands run where the Landlock sandbox is not
	// available (configuration key tools.shell.unsandboxed). Where
	// Landlock works it changes nothing: commands are always sandboxed
	// when they can be. See sandbox.go.
	Unsandboxed bool
	// WorkspaceBudget is each session workspace's size limit in bytes
	// (tools.shell.workspace_mb; default DefaultWorkspaceBudget, at least
	// 1 MiB), enforced while a command runs (budget.go).
	WorkspaceBudget int64
	// MinFree is the data directory's free-space floor in bytes
	// (store.min_free_mb; 0, the default, means none): below it calls are
	// refused, and a command that pushes the disk below it is killed.
	MinFree int64
	// Network is what commands may reach (tools.shell.network; default
	// NetworkNone). See network.go.
	Network Network
	// Limits bound each command's CPU time, memory, file size and
	// process count; zero fields take the defaults.
	Limits Limits
	// ReadOnlyPaths are the system paths a sandboxed command may read
	// and execute (default DefaultReadOnlyPaths()). Missing ones are
	// skipped; DataDir and ProtectedPaths stay hidden even below them.
	ReadOnlyPaths []string
}

// settings are validated Options with defaults applied.
type settings struct {
	workspaceRoot string
	timeout       time.Duration
	maxTimeout    time.Duration
	maxOutput     int
	shell         string
	extraEnv      []string
	grace         time.Duration
	sandbox       sandboxSettings
	space         spaceLimits
	// freeSpace measures the data directory's free space (freeSpace;
	// tests inject a full disk).
	freeSpace func(path string) (uint64, error)
}

func (o Options) settings() (settings, error) {
	if o.DataDir == "" {
		return settings{}, errors.New("shell: DataDir is required")
	}
	dataDir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return settings{}, fmt.Errorf("shell: data dir: %w", err)
	}
	s := settings{
		workspaceRoot: filepath.Join(dataDir, "workspace"),
		timeout:       orDefault(o.Timeout, DefaultTimeout),
		maxTimeout:    orDefault(o.MaxTimeout, CeilingTimeout),
		maxOutput:     orDefault(o.MaxOutput, DefaultMaxOutput),
		shell:         orDefault(o.Shell, DefaultShell),
		extraEnv:      passableNames(o.ExtraEnv),
		grace:         killGrace,
		space:         spaceLimits{Budget: orDefault(o.WorkspaceBudget, DefaultWorkspaceBudget), MinFree: o.MinFree},
		freeSpace:     freeSpace,
	}
	if s.sandbox, err = o.sandboxSettings(dataDir); err != nil {
		return settings{}, fmt.Errorf("shell: %w", err)
	}
	switch {
	case s.timeout < 0 || s.maxTimeout < 0:
		return settings{}, errors.New("shell: timeouts must be positive")
	case s.maxTimeout > CeilingTimeout:
		return settings{}, fmt.Errorf("shell: max timeout %s exceeds the ceiling of %s", s.maxTimeout, CeilingTimeout)
	case s.timeout > s.maxTimeout:
		return settings{}, fmt.Errorf("shell: timeout %s exceeds the max timeout %s", s.timeout, s.maxTimeout)
	case s.space.Budget < 1<<20:
		return settings{}, fmt.Errorf("shell: workspace budget %d bytes is too small (minimum 1 MiB)", s.space.Budget)
	case s.space.MinFree < 0:
		return settings{}, fmt.Errorf("shell: free-space floor %d bytes is negative", s.space.MinFree)
	case s.maxOutput < 64:
		// Below this the omission marker alone would not fit.
		return settings{}, fmt.Errorf("shell: max output %d bytes is too small (minimum 64)", s.maxOutput)
	}
	// Resolve now so a misconfigured shell fails at startup, not on the
	// first approved call.
	if s.shell, err = exec.LookPath(s.shell); err != nil {
		return settings{}, fmt.Errorf("shell: %w", err)
	}
	return s, nil
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
