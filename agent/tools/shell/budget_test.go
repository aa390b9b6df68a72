package shell

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspaceBudgetStopsTheCommand: a command that writes many files,
// each under the per-file limit, is stopped once the workspace passes its
// budget, and the result tells the model why and what to do.
func TestWorkspaceBudgetStopsTheCommand(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			if m.name == "sandboxed" {
				requireLandlock(t)
			}
			const budget = 2 << 20
			tl := newTool(t, func(o *Options) { o.WorkspaceBudget = budget })
			tl.settings.sandbox.protection = m.protection(tl.settings.sandbox.protection)
			// 400 files of 256 KiB: 100 MiB if nothing stopped it.
			out, err := call(t, tl, "s1", "for i in $(seq 400); do head -c 262144 /dev/zero > f$i; done; echo finished")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out, "finished") || !strings.Contains(out, "past its budget of 2 MiB (tools.shell.workspace_mb)") {
				t.Errorf("output %q, want the command killed for the workspace budget", out)
			}
			dir := filepath.Join(tl.settings.workspaceRoot, "s1")
			if size := workspaceSize(dir); size > 64<<20 {
				t.Errorf("the workspace holds %d MiB", size>>20)
			}
			// Over budget, it may shrink but not grow: deleting works.
			if out := mustCall(t, tl, "s1", "rm -f f*; echo cleaned"); out != "cleaned\n" {
				t.Errorf("cleaning up: %q", out)
			}
			if size := workspaceSize(dir); size > budget {
				t.Errorf("after rm the workspace holds %d bytes", size)
			}
		})
	}
}

// TestOneFileCannotExceedTheBudget: a single file stops at the budget
// (RLIMIT_FSIZE is lowered to it) before the supervisor even looks.
func TestOneFileCannotExceedTheBudget(t *testing.T) {
	tl := newTool(t, func(o *Options) { o.WorkspaceBudget = 1 << 20 })
	out, err := call(t, tl, "s1", "head -c 50000000 /dev/zero > big; wc -c < big")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out, "1048576\n") {
		t.Errorf("output %q, want the file stopped at 1 MiB", out)
	}
}

func TestOverSpace(t *testing.T) {
	const mib = 1 << 20
	l := spaceLimits{Budget: 10 * mib, MinFree: 100 * mib}
	tests := []struct {
		name        string
		start, size int64
		free        uint64
		freeErr     error
		want        string
	}{
		{"within", 0, 5 * mib, 1 << 40, nil, ""},
		{"at the budget", 0, 10 * mib, 1 << 40, nil, ""},
		{"past the budget", 0, 11 * mib, 1 << 40, nil, killedWorkspace},
		{"over before the call and shrinking", 20 * mib, 15 * mib, 1 << 40, nil, ""},
		{"over before the call and growing", 20 * mib, 21 * mib, 1 << 40, nil, killedWorkspace},
		{"disk below the floor while writing", 0, 5 * mib, 50 * mib, nil, killedDisk},
		{"disk below the floor, nothing written", 5 * mib, 5 * mib, 50 * mib, nil, ""},
		{"free space unreadable", 0, 5 * mib, 0, errors.New("statfs"), ""},
		{"no floor", 0, 5 * mib, 0, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := l
			if tt.name == "no floor" {
				lim.MinFree = 0
			}
			if got := overSpace(lim, tt.start, tt.size, tt.free, tt.freeErr); got != tt.want {
				t.Errorf("overSpace = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestLowDiskRefusesCalls: below store.min_free_mb no command runs, and
// the model is told why.
func TestLowDiskRefusesCalls(t *testing.T) {
	tests := []struct {
		name    string
		free    uint64
		err     error
		wantErr string
	}{
		{"above the floor", 1 << 30, nil, ""},
		{"below the floor", 10 << 20, nil, "low on disk space (10 MiB free, below the floor of 256 MiB, store.min_free_mb)"},
		{"unreadable", 0, errors.New("statfs broke"), "not run: statfs broke"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := newTool(t, func(o *Options) { o.MinFree = 256 << 20 })
			tl.settings.freeSpace = func(string) (uint64, error) { return tt.free, tt.err }
			out, err := call(t, tl, "s1", "touch ran; echo ran")
			if tt.wantErr == "" {
				if err != nil || out != "ran\n" {
					t.Errorf("got (%q, %v)", out, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got (%q, %v), want %q", out, err, tt.wantErr)
			}
			if _, err := os.Stat(filepath.Join(tl.settings.workspaceRoot, "s1", "ran")); err == nil {
				t.Error("the refused command ran")
			}
		})
	}
}

func TestNewValidatesSpace(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []Options{{DataDir: dir, WorkspaceBudget: 1000}, {DataDir: dir, MinFree: -1}, {DataDir: dir, Network: "host"}} {
		if _, err := New(o); err == nil {
			t.Errorf("New accepted %+v", o)
		}
	}
	if s := newTool(t, nil).settings.space; s != (spaceLimits{Budget: DefaultWorkspaceBudget}) {
		t.Errorf("default space limits = %+v", s)
	}
}
