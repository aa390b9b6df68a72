package shell

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// supervise is the first sandbox stage (see sandbox.go). It starts the
// confine stage, which becomes the shell, and does not exit before every
// process the command started is dead and reaped. It reports how the
// shell ended on the status pipe and exits 0; any other exit status means
// the supervisor itself failed.
func supervise(arg string) int {
	syscall.CloseOnExec(statusFD) // the confine stage gets it explicitly below
	sp, err := parseSpec(arg)
	if err == nil {
		// Nothing Parley inherited travels on; the confine stage does the
		// same for whatever reaches it anyway.
		err = closeInherited()
	}
	if err != nil {
		writeReport(report{Error: err.Error()})
		return 1
	}
	// Pdeathsig (below) fires when the thread that forked the shell
	// exits, not the process; pin this goroutine to it for good.
	runtime.LockOSThread()
	// The command runs as our user: when unsandboxed it could otherwise
	// ptrace us and stop the clean-up. Under Landlock it cannot anyway.
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		writeReport(report{Error: fmt.Sprintf("become child subreaper: %v", err)})
		return 1
	}
	// The workspace as the command finds it: what it may not grow past
	// its budget.
	space := newSpaceWatch(sp.Workspace, sp.Space)
	// Notify before the fork so that no exit and no stop request is lost.
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)

	files := []uintptr{0, 1, 2, statusFD}
	var proxySock *os.File
	if sp.Network == NetworkPublic {
		// The confine stage opens the proxy's listener inside the new
		// namespace and hands it back over this pair (proxy.go).
		pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			writeReport(report{Error: fmt.Sprintf("proxy socket pair: %v", err)})
			return 1
		}
		proxySock = os.NewFile(uintptr(pair[0]), "proxy")
		files = append(files, uintptr(pair[1])) // proxyFD
	}
	pid, err := syscall.ForkExec(selfExe, []string{"parley-sandbox", confineArg, arg}, &syscall.ProcAttr{
		Dir:   sp.Workspace,
		Env:   os.Environ(),
		Files: files,
		// Its own process group, so one kill reaches every process that
		// stayed in it. Pdeathsig survives the exec into the shell: if
		// we are killed outright, the shell dies with us.
		// The network namespace is created here, by the clone, so that
		// the command is never for an instant in the host's network.
		Sys: namespaceAttr(netnsFor(sp), &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}),
	})
	if err != nil {
		writeReport(report{Error: fmt.Sprintf("start the sandboxed shell: %v", err)})
		return 1
	}
	if proxySock != nil {
		// Our copy of the child's end closed, the receive ends at EOF
		// if the confine stage fails before handing the listener over;
		// it reports why on the status pipe itself.
		unix.Close(int(files[proxyFD]))
		if err := receiveProxy(proxySock); err != nil {
			// The command runs without a way out, which is safe; its
			// output says why its downloads fail.
			fmt.Fprintln(os.Stderr, "parley sandbox: no proxy:", err)
		}
	}
	sv := &supervisor{self: os.Getpid(), shell: pid, space: space}
	r := report{Killed: sv.watch(sp, chld, stop)}
	sv.killTree(chld)
	switch ws := sv.status; {
	case ws == nil:
		// Reaped by nobody but us, so this cannot happen; say so
		// rather than invent an exit status.
		r.Error = "the shell's exit status was lost"
	case ws.Signaled():
		r.Signal = int(ws.Signal())
	default:
		code := ws.ExitStatus()
		r.Exit = &code
	}
	writeReport(r)
	return 0
}

// netnsFor is how to create the command's network namespace, "" for
// none (the host's network).
func netnsFor(sp spec) string {
	if !sp.Network.isolated() {
		return ""
	}
	return sp.NetNS
}

// supervisor tracks one command's process tree.
type supervisor struct {
	self   int
	shell  int                 // pid of the shell, and id of its process group
	status *syscall.WaitStatus // set once the shell is reaped
	space  *spaceWatch
}

// watch waits until the shell exits or the tree must be killed, and says
// why it must ("" when the shell simply exited).
func (sv *supervisor) watch(sp spec, chld, stop <-chan os.Signal) string {
	deadline := time.NewTimer(sp.Deadline)
	defer deadline.Stop()
	tick := time.NewTicker(sp.WatchEvery)
	defer tick.Stop()
	for {
		sv.reap()
		if sv.status != nil {
			return ""
		}
		select {
		case <-chld:
		case <-stop:
			return killedStop
		case <-deadline.C:
			return killedTimeout
		case <-tick.C:
			// Counted here rather than only left to RLIMIT_NPROC, which
			// the kernel does not apply to root and which counts every
			// process of the user, not this command's.
			if n := len(descendants(sv.self, scanProcs())); n > sp.Limits.Processes {
				return killedProcesses
			}
			if why := sv.space.check(time.Now()); why != "" {
				return why
			}
		}
	}
}

// reap collects every child that has exited, without blocking, and
// reports whether any child, alive or not, is left.
func (sv *supervisor) reap() (left bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.ECHILD):
			return false
		case err != nil || pid <= 0:
			return true
		}
		if pid == sv.shell {
			sv.status = &ws
		}
	}
}

// killTree kills every descendant and returns once none is left.
//
// As child subreaper we inherit every orphan in the tree, so when no
// child is left no descendant is either. Killing goes by rounds because a
// process can fork between the scan and the kill, and the children of a
// killed process only become ours once it is dead.
//
// A pid we kill could in principle have been reused between the scan
// and the kill, but only by a process that was our descendant a moment
// ago: the kernel hands out pids in increasing order and wraps at pid_max,
// so reuse inside that window needs millions of forks. Our own children
// cannot be reused at all until we reap them, which only this goroutine
// does.
func (sv *supervisor) killTree(chld <-chan os.Signal) {
	// Usually the shell has exited and left nothing: then there is no
	// child, hence no descendant, and no need to scan /proc.
	for sv.reap() {
		procs := scanProcs()
		desc := descendants(sv.self, procs)
		if sv.status == nil || inGroup(procs, desc, sv.shell) {
			// One atomic kill for everything still in the shell's
			// group: a fork bomb that never called setsid cannot
			// outrun it. The id cannot name anyone else's group while
			// the unreaped shell or a member of the group holds it.
			syscall.Kill(-sv.shell, syscall.SIGKILL)
		}
		for _, pid := range desc {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		select {
		case <-chld:
		case <-time.After(10 * time.Millisecond):
			// An orphan reparented to us after the scan sends no
			// SIGCHLD until it dies; look again.
		}
	}
}

// proc is what scanProcs keeps of a process.
type proc struct {
	ppid, pgid int
}

// scanProcs reads every process's parent and process group from /proc.
// /proc/<pid>/task/<tid>/children would be cheaper but is missing from
// kernels built without CONFIG_PROC_CHILDREN.
func scanProcs() map[int]proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	procs := make(map[int]proc, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// "pid (comm) state ppid pgrp ...": comm may hold spaces and
		// parentheses, so fields are counted from the last ")".
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 3 {
			continue
		}
		ppid, err1 := strconv.Atoi(string(f[1]))
		pgid, err2 := strconv.Atoi(string(f[2]))
		if err1 != nil || err2 != nil {
			continue
		}
		procs[pid] = proc{ppid: ppid, pgid: pgid}
	}
	return procs
}

// descendants lists the processes below root.
func descendants(root int, procs map[int]proc) []int {
	children := make(map[int][]int)
	for pid, p := range procs {
		children[p.ppid] = append(children[p.ppid], pid)
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		next := children[queue[0]]
		queue = queue[1:]
		out = append(out, next...)
		queue = append(queue, next...)
	}
	return out
}

// inGroup reports whether any of pids is in process group pgid.
func inGroup(procs map[int]proc, pids []int, pgid int) bool {
	for _, pid := range pids {
		if procs[pid].pgid == pgid {
			return true
		}
	}
	return false
}
