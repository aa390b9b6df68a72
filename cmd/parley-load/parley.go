package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// buildParley builds ./cmd/parley of the module the working directory is
// in, into dir.
func buildParley(ctx context.Context, dir string, stderr io.Writer) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the parley module (go env GOMOD is empty); run from the repository or pass -bin")
	}
	bin := filepath.Join(dir, "parley")
	build := exec.CommandContext(ctx, "go", "build", "-tags", "sqlite_fts5", "-o", bin, "./cmd/parley")
	build.Dir = filepath.Dir(gomod)
	build.Stdout, build.Stderr = stderr, stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("go build -tags sqlite_fts5 ./cmd/parley: %w", err)
	}
	return bin, nil
}

// parley is a running `parley run`.
type parley struct {
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed when the process has exited
	err     error         // its exit, valid once done is closed
}

// startParley runs `parley run` in dir with exactly env (nothing of this
// process's environment leaks in), its output going to dir/parley.log.
func startParley(bin, dir string, env map[string]string) (*parley, error) {
	logPath := filepath.Join(dir, "parley.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "run")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	sort.Strings(cmd.Env)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s run: %w", bin, err)
	}
	p := &parley{cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *parley) pid() int { return p.cmd.Process.Pid }

// exited is closed when the process has exited.
func (p *parley) exited() <-chan struct{} { return p.done }

// cpu is the CPU time (user + system) the process used, once it exited.
func (p *parley) cpu() time.Duration {
	select {
	case <-p.done:
		return p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
	default:
		return 0
	}
}

// errExitedEarly marks a Parley that stopped before it was told to.
var errExitedEarly = errors.New("parley exited before it was stopped")

// stop sends SIGTERM, as a service manager would, and waits up to grace
// before killing. It returns how Parley ended: nil for a clean exit.
func (p *parley) stop(grace time.Duration) error {
	select {
	case <-p.done:
		return fmt.Errorf("%w: %v", errExitedEarly, p.err)
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("SIGTERM: %w", err)
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		return p.err
	case <-t.C:
		// A failed Kill means it exited meanwhile; Wait has the story.
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("still running %v after SIGTERM, killed", grace)
	}
}

// logSummary counts the warnings and errors Parley logged.
type logSummary struct {
	Errors   int      `json:"errors"`
	Warnings int      `json:"warnings"`
	Samples  []string `json:"samples,omitempty"` // the first few of them
}

// maxLogSamples is how many warnings and errors a summary quotes.
const maxLogSamples = 8

// scanLog reads a slog text log.
func scanLog(r io.Reader) (logSummary, error) {
	var s logSummary
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.Contains(line, []byte("level=ERROR")):
			s.Errors++
		case bytes.Contains(line, []byte("level=WARN")):
			s.Warnings++
		default:
			continue
		}
		if len(s.Samples) < maxLogSamples {
			s.Samples = append(s.Samples, string(line))
		}
	}
	return s, sc.Err()
}
