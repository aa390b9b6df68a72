package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// TimeoutError is a command that ran out of time. Its process tree has
// been killed; Output is what it printed until then.
type TimeoutError struct {
	After  time.Duration
	Output string
}

func (e *TimeoutError) Error() string {
	msg := "timed out after " + seconds(e.After) + " (every process it started was killed)"
	if e.Output != "" {
		msg += "; output before the kill:\n" + e.Output
	}
	return msg
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

// result is how a command that ran to the end turned out.
type result struct {
	output string
	// status is "" for exit status 0, else how the command ended in
	// os.ProcessState's words ("exit status 2", "signal: killed"), or
	// why the sandbox killed it.
	status string
	// code is the exit status, -1 when the command did not exit of itself.
	code int
}

// tmpName is the command's private temporary directory inside its
// workspace ($TMPDIR): the sandbox gives it no other writable place.
const tmpName = ".tmp"

// run executes `shell -c command` in dir, in the sandbox (see sandbox.go),
// and waits for it.
//
// Parley starts the supervisor stage and talks to it through two pipes:
// stdout and stderr share one that we create ourselves, and the
// supervisor reports how the shell ended on another (fd 3). On timeout or
// cancellation the supervisor gets SIGTERM and kills the command's whole
// tree; only if it does not exit within the grace period is it killed
// with its process group. stdin is /dev/null: there is nobody to type.
//
// We read the output pipe ourselves rather than letting os/exec copy it,
// so that Wait returns when the supervisor exits rather than when the
// pipe closes, and a stuck writer can be given up on after the grace.
// It is long because the start, the timeout, the grace and the reaping of
// one supervised process are one sequence whose steps share its state.
func run(ctx context.Context, s *settings, dir, command string, timeout time.Duration) (result, error) {
	sp, err := s.spec(dir, command, timeout)
	if err != nil {
		return result{}, err
	}
	specJSON, err := json.Marshal(sp)
	if err != nil {
		return result{}, fmt.Errorf("sandbox spec: %w", err)
	}
	if err := os.Mkdir(filepath.Join(dir, tmpName), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return result{}, fmt.Errorf("session tmp: %w", err)
	}

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	pr, pw, err := os.Pipe()
	if err != nil {
		return result{}, fmt.Errorf("output pipe: %w", err)
	}
	defer pr.Close()
	sr, sw, err := os.Pipe()
	if err != nil {
		pw.Close()
		return result{}, fmt.Errorf("status pipe: %w", err)
	}
	defer sr.Close()

	cmd := exec.CommandContext(runCtx, selfExe, superviseArg, string(specJSON))
	cmd.Args[0] = "parley-sandbox"
	cmd.Dir = dir
	cmd.Env = environment(dir, s.extraEnv, sp.Network)
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.ExtraFiles = []*os.File{sw} // fd 3 = statusFD
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var killed atomic.Bool
	cmd.Cancel = func() error {
		killed.Store(true)
		return cmd.Process.Signal(syscall.SIGTERM)
	}
	// After this the supervisor itself is killed (os/exec sends
	// SIGKILL); its shell follows through Pdeathsig.
	cmd.WaitDelay = s.grace

	startErr := cmd.Start()
	pw.Close() // the children have their own copies; ours would hold the pipes open forever
	sw.Close()
	if startErr != nil {
		return result{}, fmt.Errorf("start the shell sandbox: %w", startErr)
	}

	out := newCapture(s.maxOutput)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		io.Copy(out, pr) // ends at EOF or at the read deadline below
	}()
	var status []byte
	statusRead := make(chan struct{})
	go func() {
		defer close(statusRead)
		status, _ = io.ReadAll(sr)
	}()

	waitErr := cmd.Wait()
	// Normally the supervisor left nothing behind; this only matters if
	// it was killed before it could clean up.
	killGroup(cmd.Process.Pid)

	grace := time.NewTimer(s.grace)
	defer grace.Stop()
	for _, done := range []<-chan struct{}{drained, statusRead} {
		select {
		case <-done:
		case <-grace.C:
			// Something outside the tree holds a pipe (the supervisor
			// was killed before it could clean up). Stop reading rather
			// than hang the turn.
			pr.SetReadDeadline(time.Now())
			sr.SetReadDeadline(time.Now())
			<-done
		}
	}

	rep, repErr := mergeReports(status)
	switch {
	case killed.Load():
		if err := ctx.Err(); err != nil {
			return result{}, fmt.Errorf("shell command stopped: %w", err)
		}
		return result{}, &TimeoutError{After: timeout, Output: out.String()}
	case rep.Killed == killedTimeout:
		return result{}, &TimeoutError{After: timeout, Output: out.String()}
	case rep.Error != "":
		return result{}, fmt.Errorf("shell sandbox: %s", rep.Error)
	case repErr != nil || waitErr != nil || (rep.Exit == nil && rep.Signal == 0):
		// The supervisor exits 0 after reporting; anything else means it
		// failed, and what it printed is in the output.
		err := errors.Join(waitErr, repErr)
		if err == nil {
			err = errors.New("no exit status reported")
		}
		return result{}, fmt.Errorf("shell sandbox failed: %w; output: %s", err, strings.TrimSpace(out.String()))
	}
	res := result{output: out.String(), code: -1}
	switch {
	case rep.Killed == killedWorkspace || rep.Killed == killedDisk:
		res.status = spaceMessage(rep.Killed, s.space)
	case rep.Killed == killedProcesses:
		res.status = fmt.Sprintf("killed: the command had more than %d processes at once (the sandbox's limit)", s.sandbox.limits.Processes)
	case rep.Signal != 0:
		res.status = "signal: " + syscall.Signal(rep.Signal).String()
	default:
		res.code = *rep.Exit
		if res.code != 0 {
			res.status = "exit status " + strconv.Itoa(res.code)
		}
	}
	return res, nil
}

// killGroup kills the process group led by pid.
func killGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
