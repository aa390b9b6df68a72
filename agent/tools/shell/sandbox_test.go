package shell

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Each test here is an escape a reviewer used or could use against the
// blocklist-only shell tool. Each must be refused, or see nothing.

// modes are the two ways commands run: under Landlock, and without it
// where the operator allowed that (tools.shell.unsandboxed). Checks that
// hold in both run in both.
var modes = []struct {
	name       string
	protection func(Protection) Protection
}{
	{"sandboxed", func(p Protection) Protection { return p }},
	{"unsandboxed", func(p Protection) Protection {
		return Protection{Unsandboxed: true, Network: p.Network, NetNS: p.NetNS}
	}},
}

func requireLandlock(t *testing.T) {
	t.Helper()
	if landlockABI() == 0 {
		t.Skip("no Landlock on this kernel")
	}
}

// parleyFiles lays out a data directory as Parley's: a database with a
// transcript, a config file beside it, and the workspace root. It returns
// the tool and the database path.
func parleyFiles(t *testing.T, mod func(*Options)) (*tool, string) {
	t.Helper()
	dataDir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dataDir, "parley.db")
	if err := os.WriteFile(db, []byte("TRANSCRIPT-OF-EVERY-USER"), 0o600); err != nil {
		t.Fatal(err)
	}
	tl := newTool(t, func(o *Options) {
		o.DataDir = dataDir
		o.ProtectedPaths = []string{db}
		if mod != nil {
			mod(o)
		}
	})
	return tl, db
}

func TestSecretsOutOfReach(t *testing.T) {
	if os.Getenv(secretVar) != secretValue {
		t.Fatal("TestMain did not put the fake secret in this process's environment")
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			if m.name == "sandboxed" {
				requireLandlock(t)
			}
			tl := newTool(t, nil)
			tl.settings.sandbox.protection = m.protection(tl.settings.sandbox.protection)
			// $PPID is the supervisor; its parent is Parley (this test
			// process). The blocklist refuses the plain spellings; the
			// others get past it and must meet the sandbox.
			for _, tc := range []struct {
				cmd    string
				evades bool
			}{
				{"cat /proc/$PPID/environ", false},
				{"cat /proc/$PPID/envir?n", true},
				{fmt.Sprintf("cat /proc/%d/env*", os.Getpid()), true},
				{"cat /proc/*/env*", true},
				{fmt.Sprintf("f=env; tr '\\0' '\\n' < /proc/%d/${f}iron", os.Getpid()), true},
				{fmt.Sprintf("head -c 100000 /proc/%d/mem", os.Getpid()), true},
				{"f=env; cat /proc/$(ps -o ppid= -p $PPID | tr -d ' ')/${f}iron", true},
			} {
				out, err := call(t, tl, "s1", tc.cmd+"; echo ran")
				if tc.evades && err != nil {
					t.Fatalf("%q was refused (%v): it no longer tests the sandbox", tc.cmd, err)
				}
				if strings.Contains(out, secretValue) {
					t.Errorf("%q printed Parley's secret", tc.cmd)
				}
				if err == nil && !strings.Contains(out, "ran") {
					t.Errorf("%q did not run: %q", tc.cmd, out)
				}
			}
			// The shell's own environment is readable: the checks above
			// failed for the right reason.
			if out := mustCall(t, tl, "s1", "f=env; tr '\\0' '\\n' < /proc/self/${f}iron"); !strings.Contains(out, "TERM=dumb") {
				t.Errorf("own environ = %q", out)
			}
		})
	}
}

func TestDatabaseOutOfReach(t *testing.T) {
	requireLandlock(t)
	tl, db := parleyFiles(t, nil)
	dataDir := filepath.Dir(db)
	for _, cmd := range []string{
		// Spelled out: the blocklist refuses these before the sandbox.
		"cat ../../parley.db",
		"cat " + db,
		// What the blocklist cannot foresee.
		"cat ../../*.db",
		"cat ../../parley.d?",
		"cat $(printf '../../parl%s' ey.db)",
		"cat " + filepath.Dir(dataDir) + "/*/*.db",
		"cd ../.. && cat ./*db",
		"for f in ../../*; do cat \"$f\"; done",
		"cp ../../p*.db . ; cat p*.db",
		"ln ../../p*.db x.db; cat x.db",
		"ln -s ../../p*.db y.db; cat y.db",
	} {
		out, err := call(t, tl, "s1", cmd)
		if err == nil && strings.Contains(out, "TRANSCRIPT") {
			t.Errorf("%q read the database: %q", cmd, out)
		}
	}
	// Not even the names of what the data directory holds.
	if out := mustCall(t, tl, "s1", "ls ../.. ../ 2>&1; echo ran"); strings.Contains(out, "parley.db") || !strings.Contains(out, "ran") {
		t.Errorf("listing the data directory: %q", out)
	}
}

// Parley's config file below a path the sandbox may read (as under /etc)
// stays hidden, and the rest of that path stays readable.
func TestProtectedFileBelowReadOnlyPathHidden(t *testing.T) {
	requireLandlock(t)
	etc := t.TempDir()
	conf := filepath.Join(etc, "parley", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(conf), 0o755); err != nil {
		t.Fatal(err)
	}
	for path, content := range map[string]string{
		conf: "api_key: CONFIG-SECRET", filepath.Join(etc, "parley", "other.conf"): "fine",
		filepath.Join(etc, "hosts"): "also fine",
	} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(conf, filepath.Join(etc, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	tl, _ := parleyFiles(t, func(o *Options) {
		o.ProtectedPaths = append(o.ProtectedPaths, conf)
		o.ReadOnlyPaths = append(DefaultReadOnlyPaths(), etc)
	})
	out := mustCall(t, tl, "s1", fmt.Sprintf("cat %[1]s/hosts %[1]s/parley/other.conf; echo; cat %[1]s/*/*.yaml %[1]s/link.yaml; echo ran", etc))
	if strings.Contains(out, "CONFIG-SECRET") {
		t.Errorf("the config file was read: %q", out)
	}
	if !strings.Contains(out, "also fine") || !strings.Contains(out, "fine") || !strings.Contains(out, "ran") {
		t.Errorf("the rest of the read-only path was not readable: %q", out)
	}
}

func TestOtherSessionOutOfReach(t *testing.T) {
	requireLandlock(t)
	tl := newTool(t, nil)
	mustCall(t, tl, "alice", "echo ALICE-PRIVATE > note.txt")
	for _, cmd := range []string{
		"cat ../alice/note.txt",
		"cat ../*/note.txt",
		"cat $HOME/../alice/note.txt",
		"cat " + filepath.Join(tl.settings.workspaceRoot, "alice", "note.txt"),
		"ls ../alice",
		"echo overwritten > ../alice/note.txt",
	} {
		out := mustCall(t, tl, "bob", cmd+"; echo ran")
		if strings.Contains(out, "ALICE-PRIVATE") || !strings.Contains(out, "ran") {
			t.Errorf("%q from another session: %q", cmd, out)
		}
	}
	if got := mustCall(t, tl, "alice", "cat note.txt"); got != "ALICE-PRIVATE\n" {
		t.Errorf("alice's note = %q", got)
	}
}

func TestWritesOutsideWorkspaceFail(t *testing.T) {
	requireLandlock(t)
	tl, db := parleyFiles(t, nil)
	outside := t.TempDir()
	targets := []string{
		filepath.Join(outside, "planted"),
		filepath.Join(filepath.Dir(db), "planted"),
		filepath.Join(tl.settings.workspaceRoot, "planted"),
		"/tmp/parley-sandbox-test-planted",
	}
	for _, target := range targets {
		mustCall(t, tl, "s1", fmt.Sprintf("echo x > %[1]s; touch %[1]s; mkdir %[1]s.d; echo ran", target))
		for _, p := range []string{target, target + ".d"} {
			if _, err := os.Lstat(p); err == nil {
				os.RemoveAll(p)
				t.Errorf("the command created %s", p)
			}
		}
	}
	if out := mustCall(t, tl, "s1", "echo more >> ../../parley.d?; rm -f ../../*.db; echo ran"); !strings.Contains(out, "ran") {
		t.Errorf("out = %q", out)
	}
	if b, err := os.ReadFile(db); err != nil || string(b) != "TRANSCRIPT-OF-EVERY-USER" {
		t.Errorf("database after the attempts: %q, %v", b, err)
	}
}

// What ordinary work needs still works in the sandbox.
func TestSandboxAllowsOrdinaryWork(t *testing.T) {
	requireLandlock(t)
	tl := newTool(t, nil)
	out := mustCall(t, tl, "s1", strings.Join([]string{
		"mkdir -p src/a && echo data > src/a/f",
		"mv src/a/f src/g && ln src/g src/h && ln -s g src/s", // across directories: "refer"
		"cat src/s",
		"t=$(mktemp) && echo tmp > $t && cat $t",         // $TMPDIR
		"ls /usr/bin > /dev/null && echo ok-usr",         // system programs
		"grep -q root /etc/passwd && echo ok-etc",        // system config
		"grep -q Name /proc/self/status && echo ok-proc", // /proc
		"echo to-null > /dev/null && head -c 4 /dev/urandom | wc -c",
		"sh -c 'exit 3'; echo sub=$?",
	}, " && "))
	for _, want := range []string{"data", "tmp", "ok-usr", "ok-etc", "ok-proc", "4", "sub=3"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// The command cannot kill its supervisor (to escape the clean-up) or
// Parley: Landlock scopes signals to the sandbox from ABI 6.
func TestCannotSignalOutside(t *testing.T) {
	if landlockABI() < 6 {
		t.Skip("Landlock before ABI 6 does not scope signals")
	}
	tl := newTool(t, nil)
	out := mustCall(t, tl, "s1", fmt.Sprintf(`kill -9 $PPID; kill -STOP %d; setsid sleep 1000 >/dev/null 2>&1 & echo $!`, os.Getpid()))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assertKilled(t, firstPID(t, lines[len(lines)-1]))
	if !strings.Contains(out, "Operation not permitted") {
		t.Errorf("out = %q, want the kills refused", out)
	}
}

func TestLimits(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			if m.name == "sandboxed" {
				requireLandlock(t)
			}
			tl := newTool(t, func(o *Options) {
				o.Limits = Limits{CPUTime: time.Second, Memory: 256 << 20, FileSize: 1 << 20, Processes: 20}
			})
			tl.settings.sandbox.protection = m.protection(tl.settings.sandbox.protection)

			// A memory hog: dd's buffer alone is 1 GiB.
			out := mustCall(t, tl, "s1", "dd if=/dev/zero of=/dev/null bs=1G count=1 2>&1; echo dd=$?")
			if !strings.Contains(out, "memory exhausted") || strings.Contains(out, "dd=0") {
				t.Errorf("memory hog: %q", out)
			}
			// A file past the size limit.
			out = mustCall(t, tl, "s1", "dd if=/dev/zero of=big bs=1M count=4 2>/dev/null; echo dd=$?; wc -c < big")
			if strings.Contains(out, "dd=0") || !strings.Contains(out, "1048576") {
				t.Errorf("file size: %q", out)
			}
			// A CPU spinner.
			out = mustCall(t, tl, "s1", "while :; do :; done")
			if !strings.Contains(out, "signal: CPU time limit exceeded") {
				t.Errorf("CPU spinner: %q", out)
			}
		})
	}
}

// A fork bomb is bounded so that, where the limit fails, the test cannot
// take the machine down: 300 sleeps that would each hold a process for
// longer than the test waits.
func TestForkBombStopped(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			if m.name == "sandboxed" {
				requireLandlock(t)
			}
			tl := newTool(t, func(o *Options) {
				o.Limits.Processes = 20
				o.Timeout = 30 * time.Second
			})
			tl.settings.sandbox.protection = m.protection(tl.settings.sandbox.protection)
			start := time.Now()
			out, err := call(t, tl, "s1", `i=0; while [ $i -lt 300 ]; do sleep 120 & echo $! >> pids; i=$((i+1)); done; wait`)
			if err != nil {
				t.Fatalf("got error %v, want the call to end with the tree killed", err)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("the bomb ran for %s", d)
			}
			t.Logf("the bomb ended after %s with %.200q", time.Since(start), out)
			killedByCount := strings.HasPrefix(out, "killed: the command had more than 20 processes")
			refusedFork := strings.Contains(out, "fork") || strings.Contains(out, "Resource temporarily unavailable")
			if !killedByCount && !refusedFork {
				t.Errorf("out = %q, want the process limit to stop it", out)
			}
			pids, err := os.ReadFile(filepath.Join(tl.settings.workspaceRoot, "s1", "pids"))
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Fields(string(pids)) {
				var pid int
				fmt.Sscan(line, &pid)
				if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("sleep %d survived the command (kill -0: %v)", pid, err)
				}
			}
		})
	}
}

func TestRefusedWithoutLandlock(t *testing.T) {
	tl := newTool(t, nil)
	tl.settings.sandbox.protection = Protection{NetNS: netnsPlain}
	out, err := call(t, tl, "s1", "touch ran")
	if err == nil || !strings.Contains(err.Error(), "tools.shell.unsandboxed: true") {
		t.Fatalf("got (%q, %v), want a refusal naming tools.shell.unsandboxed", out, err)
	}
	if _, err := os.Stat(filepath.Join(tl.settings.workspaceRoot, "s1")); err == nil {
		t.Error("a refused call created a workspace")
	}
}

func TestProtection(t *testing.T) {
	tests := []struct {
		p       Protection
		refused bool
		want    string
	}{
		{Protection{LandlockABI: 7, NetNS: netnsPlain}, false, "sandboxed (Landlock ABI 7); network: none (own namespace, netns)"},
		{Protection{LandlockABI: 7, Unsandboxed: true, NetNS: netnsUser}, false, "sandboxed (Landlock ABI 7)"},
		{Protection{LandlockABI: 4, NetNS: netnsPlain}, false, "cannot deny signalling Parley"},
		{Protection{Unsandboxed: true, NetNS: netnsPlain}, false, "unsandboxed by config"},
		{Protection{NetNS: netnsPlain}, true, "refused: no Landlock"},
		{Protection{LandlockABI: 7, Network: NetworkAll}, false, "sandboxed (Landlock ABI 7); network: all (the host's)"},
		{Protection{LandlockABI: 7, Network: NetworkPublic, NetNS: netnsUser}, false, "network: public addresses only"},
		// No namespace: none and public are refused, never quietly
		// given the host's network.
		{Protection{LandlockABI: 7}, true, "refused: tools.shell.network is none, but this host cannot"},
		{Protection{LandlockABI: 7, Network: NetworkPublic}, true, "set tools.shell.network: all"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); tt.p.Refused() != tt.refused || !strings.Contains(got, tt.want) {
			t.Errorf("%+v: Refused = %v, String = %q; want %v, containing %q", tt.p, tt.p.Refused(), got, tt.refused, tt.want)
		}
	}
	if p := Probe(false, ""); p.LandlockABI != landlockABI() || p.Network != NetworkNone {
		t.Errorf("Probe = %+v", p)
	}
	if p := Probe(false, NetworkAll); p.NetNS != "" || p.Warning() == "" {
		t.Errorf("Probe(all) = %+v, want no namespace probed and a warning", p)
	}
}

func TestNewValidatesLimits(t *testing.T) {
	dir := t.TempDir()
	for _, l := range []Limits{
		{CPUTime: time.Millisecond}, {Memory: 1 << 20}, {FileSize: 10}, {Processes: 1},
	} {
		if _, err := New(Options{DataDir: dir, Limits: l}); err == nil {
			t.Errorf("New accepted limits %+v", l)
		}
	}
	if _, err := New(Options{DataDir: dir, ReadOnlyPaths: []string{"usr"}}); err == nil {
		t.Error("New accepted a relative read-only path")
	}
	s := newTool(t, nil).settings.sandbox.limits
	if s != (Limits{CPUTime: DefaultCPUTime, Memory: DefaultMemory, FileSize: DefaultFileSize, Processes: DefaultProcesses}) {
		t.Errorf("default limits = %+v", s)
	}
}

// A sandbox that cannot be set up says why, and runs nothing.
func TestSandboxSetupFailureReported(t *testing.T) {
	tl := newTool(t, nil)
	tl.settings.shell = "/nonexistent/sh"
	out, err := call(t, tl, "s1", "echo ran")
	if err == nil || !strings.Contains(err.Error(), "shell sandbox: exec /nonexistent/sh") || strings.Contains(out, "ran") {
		t.Errorf("got (%q, %v), want the exec failure reported", out, err)
	}
}
