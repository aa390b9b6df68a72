package shell

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// confine is the second sandbox stage (see sandbox.go): it confines its
// own thread and replaces itself with the shell. It returns only when
// that fails, after reporting why.
func confine(arg string) int {
	// Capabilities, no_new_privs and the Landlock domain belong to the
	// calling thread, and execve keeps only the calling thread. So all of
	// it happens on this one thread, which is never unlocked: should
	// anything fail, the runtime must not hand the thread to other code.
	runtime.LockOSThread()
	syscall.CloseOnExec(statusFD) // the shell must not inherit it
	sp, err := parseSpec(arg)
	if err == nil {
		err = enter(sp)
	}
	writeReport(report{Error: err.Error()})
	return 127
}

// enter confines the thread and executes the shell; it returns only on
// failure.
func enter(sp spec) error {
	if err := closeInherited(); err != nil {
		return err
	}
	if sp.Network.isolated() {
		if sp.NetNS == "" {
			return errors.New("no network namespace; the command was not run")
		}
		if err := loopbackUp(); err != nil {
			return err
		}
		if sp.Network == NetworkPublic {
			if err := listenProxy(); err != nil {
				return err
			}
		}
	}
	rulesetFD, flags := -1, uint32(0)
	if sp.Landlock {
		rules, err := landlockRules(sp)
		if err != nil {
			return err
		}
		rulesetFD, flags, err = landlockConfig().NewRulesetFD(rules...)
		if err != nil {
			return fmt.Errorf("landlock ruleset: %w", err)
		}
		// Best effort falls back to nothing where the kernel has no
		// Landlock; a command that was promised a sandbox must not run.
		if rulesetFD < 0 {
			return errors.New("landlock is not available; the command was not run")
		}
	}
	limits, err := rlimits(sp.Limits)
	if err != nil {
		return err
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if rulesetFD >= 0 {
		if err := ll.LandlockRestrictSelf(rulesetFD, flags); err != nil {
			return fmt.Errorf("landlock_restrict_self: %w", err)
		}
	}
	return execve(sp.Shell, []string{sp.Shell, "-c", sp.Command}, os.Environ(), func() error {
		for _, l := range limits {
			if err := unix.Setrlimit(l.resource, &l.value); err != nil {
				return fmt.Errorf("set %s limit: %w", l.name, err)
			}
		}
		return nil
	})
}

// landlockConfig is what the sandbox restricts: every filesystem access
// right and both IPC scopes (signals and abstract UNIX sockets reaching
// outside the sandbox) of ABI 7, as far as the kernel supports them.
// Pinned rather than the newest version so that a go-landlock upgrade
// cannot quietly start denying more. Network access is not restricted.
func landlockConfig() landlock.Config {
	return landlock.Config{HandledAccessFS: landlock.V7.HandledAccessFS, Scoped: landlock.V7.Scoped}.BestEffort()
}

// landlockRules grants the workspace read-write, a few devices, and the
// read-only paths minus Parley's own files.
func landlockRules(sp spec) ([]landlock.Rule, error) {
	ws := landlock.RWDirs(sp.Workspace)
	// Moving and linking files between the workspace's own directories
	// needs "refer" (ABI 2). Asking for it on ABI 1 would make best
	// effort drop Landlock altogether, so it is only asked for where it
	// exists.
	if landlockABI() >= 2 {
		ws = ws.WithRefer()
	}
	rules := []landlock.Rule{ws, landlock.RWFiles(devices()...).IgnoreIfMissing()}
	for _, p := range sp.ReadOnly {
		r, err := readOnlyRules(p, sp.Hidden)
		if err != nil {
			return nil, err
		}
		rules = append(rules, r...)
	}
	return rules, nil
}

// readOnlyRules grants read and execute below p, except for the hidden
// paths. Landlock only ever allows, so a hidden path below p is carved
// out by granting p's entries one by one instead of p, down to the
// hidden path's parent. Symlinks are resolved first: a rule follows them,
// and a link must not lead into a hidden directory.
func readOnlyRules(p string, hidden []string) ([]landlock.Rule, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, nil // missing or dangling: nothing to grant
	}
	var below []string
	for _, h := range hidden {
		for _, q := range []string{p, real} {
			if within(q, h) {
				return nil, nil // hidden itself
			}
		}
		if within(h, real) || within(h, p) {
			below = append(below, h)
		}
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, nil
	}
	switch {
	case !info.IsDir():
		return []landlock.Rule{landlock.ROFiles(real)}, nil
	case len(below) == 0:
		return []landlock.Rule{landlock.RODirs(real)}, nil
	}
	entries, err := os.ReadDir(real)
	if err != nil {
		return nil, fmt.Errorf("read-only path %s: %w", real, err)
	}
	var rules []landlock.Rule
	for _, e := range entries {
		r, err := readOnlyRules(filepath.Join(real, e.Name()), below)
		if err != nil {
			return nil, err
		}
		rules = append(rules, r...)
	}
	return rules, nil
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// rlimit is one resource limit, prepared before it is set.
type rlimit struct {
	name     string
	resource int
	value    unix.Rlimit
}

// rlimits turns Limits into resource limits, never above the hard limits
// already in force (only root could raise those).
func rlimits(l Limits) ([]rlimit, error) {
	cpu := uint64(l.CPUTime / time.Second)
	list := []rlimit{
		// The hard limit a little above the soft one: SIGXCPU first, so
		// the shell can say why; SIGKILL for a process that ignores it.
		{"CPU time", unix.RLIMIT_CPU, unix.Rlimit{Cur: cpu, Max: cpu + 5}},
		{"memory", unix.RLIMIT_AS, unix.Rlimit{Cur: uint64(l.Memory), Max: uint64(l.Memory)}},
		{"file size", unix.RLIMIT_FSIZE, unix.Rlimit{Cur: uint64(l.FileSize), Max: uint64(l.FileSize)}},
		// No core files of sandboxed programs in the workspace.
		{"core size", unix.RLIMIT_CORE, unix.Rlimit{}},
		// The Go runtime raised the soft limit on open files for itself;
		// the usual default keeps select()-based programs working.
		{"open files", unix.RLIMIT_NOFILE, unix.Rlimit{Cur: 1024, Max: ^uint64(0)}},
	}
	if uid := os.Getuid(); uid != 0 {
		// RLIMIT_NPROC counts every process and thread of the user, so
		// the command's allowance goes on top of what runs already.
		// Root is exempt from it; the supervisor's count covers both.
		n := uint64(userTasks(uid) + l.Processes)
		list = append(list, rlimit{"process", unix.RLIMIT_NPROC, unix.Rlimit{Cur: n, Max: n}})
	}
	for i := range list {
		var cur unix.Rlimit
		if err := unix.Getrlimit(list[i].resource, &cur); err != nil {
			return nil, fmt.Errorf("get %s limit: %w", list[i].name, err)
		}
		v := &list[i].value
		v.Max = min(v.Max, cur.Max)
		v.Cur = min(v.Cur, v.Max)
	}
	return list, nil
}

// userTasks counts the tasks (threads included) whose real user is uid,
// as RLIMIT_NPROC does.
func userTasks(uid int) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	total := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		f, err := os.Open("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		var real, threads int
		realOK := false
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			key, val, _ := strings.Cut(sc.Text(), ":")
			fields := strings.Fields(val)
			switch {
			case key == "Uid" && len(fields) > 0:
				real, err = strconv.Atoi(fields[0])
				realOK = err == nil
			case key == "Threads" && len(fields) > 0:
				threads, _ = strconv.Atoi(fields[0])
			}
		}
		f.Close()
		if realOK && real == uid {
			total += threads
		}
	}
	return total
}

// dropCapabilities empties the thread's capability sets, so that a
// Parley running as root does not hand root's powers (loading modules,
// rebooting, reading any file) to the command. Where the bounding set can
// be dropped (CAP_SETPCAP) it is, so that executing a program cannot give
// them back; where it cannot, no_new_privs, set next, has the same effect.
func dropCapabilities() error {
	for c := 0; c < 64; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			// EINVAL: past the last capability. EPERM: not ours to drop.
			break
		}
	}
	// EINVAL before Linux 4.3, which has no ambient set to clear.
	unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}

// execve replaces the process with path. last runs after everything that
// allocates and right before the system call: it sets the resource
// limits, and once the address-space limit is below what the Go runtime
// has mapped, the runtime must not need another mapping (syscall.Exec
// allocates after the point where the limits would have to be set).
func execve(path string, argv, env []string, last func() error) error {
	pathp, err := syscall.BytePtrFromString(path)
	if err != nil {
		return fmt.Errorf("exec %s: %w", path, err)
	}
	argvp, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return fmt.Errorf("exec %s: %w", path, err)
	}
	envp, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return fmt.Errorf("exec %s: %w", path, err)
	}
	if err := last(); err != nil {
		return err
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_EXECVE,
		uintptr(unsafe.Pointer(pathp)), uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])))
	return fmt.Errorf("exec %s: %w", path, errno)
}
