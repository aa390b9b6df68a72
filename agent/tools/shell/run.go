package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

// TimeoutError is a command that ran out of time. Its process group has
// been killed; Output is what it printed until then.
type TimeoutError struct {
	After  time.Duration
	Output string
}

func (e *TimeoutError) Error() string {
	msg := "timed out after " + seconds(e.After) + " (process group killed)"
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
	exit   *exec.ExitError // nil when the command exited 0
}

// run executes `shell -c command` in dir and waits for it.
//
// The command gets its own process group so that every process it starts
// can be killed at once: on timeout, on cancellation, and as soon as the
// shell itself exits, so background jobs do not outlive the call (nothing
// would ever collect their output, and a turn should not leave processes
// behind). stdin is /dev/null: there is nobody to type.
//
// stdout and stderr share one pipe that we create ourselves rather than
// letting os/exec copy them: os/exec would wait for the copy to finish
// before Wait returns, which gives us no moment to kill leftover jobs
// holding the pipe once the shell is gone. With our own pipe, Wait returns
// when the shell exits, we kill the group, and the pipe closes.
func run(ctx context.Context, s *settings, dir, command string, timeout time.Duration) (result, error) {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	pr, pw, err := os.Pipe()
	if err != nil {
		return result{}, fmt.Errorf("output pipe: %w", err)
	}
	defer pr.Close()

	cmd := exec.CommandContext(runCtx, s.shell, "-c", command)
	cmd.Dir = dir
	cmd.Env = environment(dir, s.extraEnv)
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var killed atomic.Bool
	cmd.Cancel = func() error {
		killed.Store(true)
		return killGroup(cmd.Process.Pid)
	}
	// SIGKILL cannot be ignored, so this only matters if the kernel is
	// slow to reap; it bounds Wait after a cancellation all the same.
	cmd.WaitDelay = s.grace

	startErr := cmd.Start()
	pw.Close() // the child has its own copy; ours would hold the pipe open forever
	if startErr != nil {
		return result{}, fmt.Errorf("start %s: %w", s.shell, startErr)
	}

	out := newCapture(s.maxOutput)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		io.Copy(out, pr) // ends at EOF or at the read deadline below
	}()

	waitErr := cmd.Wait()
	// The shell is gone; so must be everything it started. The group id
	// cannot have been reused while any member is alive, and once none is
	// the kill is a harmless ESRCH.
	killGroup(cmd.Process.Pid)

	grace := time.NewTimer(s.grace)
	select {
	case <-drained:
		grace.Stop()
	case <-grace.C:
		// Something that left the process group (setsid, a daemon)
		// still holds the pipe. Stop reading rather than hang the turn.
		pr.SetReadDeadline(time.Now())
		<-drained
	}

	if killed.Load() {
		if err := ctx.Err(); err != nil {
			return result{}, fmt.Errorf("shell command stopped: %w", err)
		}
		return result{}, &TimeoutError{After: timeout, Output: out.String()}
	}
	res := result{output: out.String()}
	if waitErr != nil {
		if !errors.As(waitErr, &res.exit) {
			return result{}, fmt.Errorf("wait: %w", waitErr)
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
