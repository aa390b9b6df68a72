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

	// killGrace is how long we wait, after the process group is killed,
	// for the output pipe to close. Only a process that left the group
	// (setsid, daemonizing) can keep it open; it must not hang the turn.
	killGrace = 2 * time.Second
)

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
	}
	switch {
	case s.timeout < 0 || s.maxTimeout < 0:
		return settings{}, errors.New("shell: timeouts must be positive")
	case s.maxTimeout > CeilingTimeout:
		return settings{}, fmt.Errorf("shell: max timeout %s exceeds the ceiling of %s", s.maxTimeout, CeilingTimeout)
	case s.timeout > s.maxTimeout:
		return settings{}, fmt.Errorf("shell: timeout %s exceeds the max timeout %s", s.timeout, s.maxTimeout)
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
