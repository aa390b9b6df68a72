package shell

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/parleybot/parley/agent"
)

// Name is the tool's name as the model and the configuration see it.
const Name = "shell"

// Args is the shell tool's argument contract.
type Args struct {
	Command        string `json:"command" jsonschema:"the command line to run with /bin/sh -c"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"seconds before the command is killed; omit for the default; larger values are capped"`
}

// tool is the agent.Tool built by agent.Func (schema and argument
// validation) plus the approval contract.
type tool struct {
	agent.Tool
	settings  settings
	blocklist blocklist
}

var _ agent.Approvable = (*tool)(nil)

// New returns the shell tool. See the package comment for what it does and
// does not protect against; in particular, the wiring must not lower its
// approval policy.
func New(opts Options) (agent.Tool, error) {
	s, err := opts.settings()
	if err != nil {
		return nil, err
	}
	protected, err := newProtectedPaths(opts.ProtectedPaths, s.workspaceRoot)
	if err != nil {
		return nil, fmt.Errorf("shell: %w", err)
	}
	t := &tool{settings: s, blocklist: blocklist{protected: protected}}
	t.Tool, err = agent.Func(Name, description(s), t.execute)
	if err != nil {
		return nil, err
	}
	return t, nil
}

func description(s settings) string {
	confinement := "The command runs in a sandbox: it may write only in the workspace (use $TMPDIR there, not " +
		"/tmp), read and run what is in the system directories (/usr, /bin, /lib, /etc, /opt, /proc), and " +
		"nothing else; it has"
	if !s.sandbox.protection.Sandboxed() {
		confinement = "This host has no filesystem sandbox, but the command has"
	}
	return fmt.Sprintf("Run a command line with /bin/sh -c on the host, in this conversation's own workspace "+
		"directory (also $HOME; its files persist for the conversation). A person must approve every call, so "+
		"do one meaningful step per call and say why in your message. You get stdout and stderr combined, at "+
		"most %d bytes (the middle of longer output is cut), and the exit status if it is not 0. Timeout %s by "+
		"default, at most %s with timeout_seconds. stdin is empty; nothing is interactive. Background jobs are "+
		"killed when the command returns. The environment is minimal and holds no credentials. %s no root "+
		"powers, and limits on CPU time, memory, file size and process count (at most %d at once). Commands "+
		"that wipe or format disks, power off the host, fork-bomb, or touch Parley's own config or database are "+
		"refused outright. %s The workspace may hold at most %d MiB; a command that grows it past that is "+
		"stopped.", s.maxOutput, seconds(s.timeout), seconds(s.maxTimeout), confinement, s.sandbox.limits.Processes,
		networkDescription(s.sandbox.protection.network()), s.space.Budget>>20)
}

// networkDescription tells the model what the network mode lets it do, so
// it does not retry a download that cannot work.
func networkDescription(n Network) string {
	switch n {
	case NetworkAll:
		return "The command has the host's network."
	case NetworkPublic:
		return "The command reaches public internet addresses only through HTTP_PROXY/HTTPS_PROXY (curl, wget, " +
			"git over https, pip, go and npm use it); other connections, and private or local addresses, fail."
	}
	return "The command has no network at all (only its own 127.0.0.1): downloads and connections fail."
}

// ApprovalPolicy is always: a person approves every shell command. The
// sandbox limits the damage of a bad approval; see the package comment.
func (t *tool) ApprovalPolicy() agent.Policy { return agent.PolicyAlways }

// ApprovalMandatory makes the runner ignore any configured override: no
// setting lets shell commands run unapproved.
func (t *tool) ApprovalMandatory() bool { return true }

func (t *tool) execute(ctx context.Context, c agent.Caller, a Args) (string, error) {
	if strings.TrimSpace(a.Command) == "" {
		return "", errors.New("command is empty")
	}
	// The blocklist comes first: a refused command must not even create a
	// workspace.
	if err := t.blocklist.check(a.Command); err != nil {
		return "", err
	}
	// So must a host without the sandbox, unless the operator said to run
	// without it.
	if t.settings.sandbox.protection.Refused() {
		return "", refusal(t.settings.sandbox.protection)
	}
	if err := t.checkFloor(); err != nil {
		return "", err
	}
	timeout, err := t.timeoutFor(a.TimeoutSeconds)
	if err != nil {
		return "", err
	}
	dir, err := workspace(t.settings.workspaceRoot, c.WorkspaceID())
	if err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("shell command stopped: %w", err)
	}
	res, err := run(ctx, &t.settings, dir, a.Command, timeout)
	if err != nil {
		return "", err
	}
	if res.status != "" {
		// A failed command is a failed call: the model still reads the
		// status and the output (the error's text), and learning from use
		// counts it as a real error (docs/evolution.md).
		return "", &ExitError{Code: res.code, Status: res.status, Output: res.output}
	}
	return format(res), nil
}

// ExitError is a command that ran to its end and failed: it exited with
// a status other than 0, was killed by a signal, or was stopped by the
// sandbox. Its text is what the model reads: the status line, then the
// output.
type ExitError struct {
	// Code is the exit status; -1 when a signal or the sandbox ended it.
	Code int
	// Status says how it ended ("exit status 2", "signal: killed").
	Status string
	Output string
}

func (e *ExitError) Error() string { return format(result{output: e.Output, status: e.Status}) }

// Transient is false: what a command does is the command's, whatever it
// printed (a curl that could not connect failed as asked), so a failed
// command is never counted as the environment's.
func (e *ExitError) Transient() bool { return false }

// checkFloor refuses a call while the data directory is below its
// free-space floor: a command would only push it further, and the
// database needs that space.
func (t *tool) checkFloor() error {
	floor := t.settings.space.MinFree
	if floor == 0 {
		return nil
	}
	root := filepath.Dir(t.settings.workspaceRoot) // the data directory
	free, err := t.settings.freeSpace(root)
	if err != nil {
		return fmt.Errorf("not run: %w", err)
	}
	if free < uint64(floor) {
		return fmt.Errorf("not run: Parley's data directory is low on disk space (%d MiB free, below the floor of "+
			"%d MiB, store.min_free_mb); delete files in the workspace or ask the operator to free space", free>>20, floor>>20)
	}
	return nil
}

// timeoutFor turns the model's timeout_seconds into the call's timeout.
// Too large is capped rather than refused: the model cannot know the
// operator's limit, and running with the cap is what it would retry with.
func (t *tool) timeoutFor(secs int) (time.Duration, error) {
	switch {
	case secs < 0:
		return 0, fmt.Errorf("timeout_seconds must be positive, got %d", secs)
	case secs == 0:
		return t.settings.timeout, nil
	case int64(secs) >= int64(t.settings.maxTimeout/time.Second):
		return t.settings.maxTimeout, nil
	}
	return time.Duration(secs) * time.Second, nil
}

// format is the text the model sees: the exit status line when it is not
// 0, then the output.
func format(r result) string {
	out := r.output
	if r.status != "" {
		if out == "" {
			return r.status
		}
		return r.status + "\n" + out
	}
	if out == "" {
		return "(no output)"
	}
	return out
}
