package store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/parleybot/parley/store"
)

// nobody is the unprivileged account the read-only cases run as when the
// tests run as root.
const nobody = 65534

// helperEnv names the variable that turns TestHelperOpen into a subprocess
// that opens the database at its value.
const helperEnv = "PARLEY_STORE_HELPER_OPEN"

// TestHelperOpen is not a test: run as a subprocess by openUnprivileged, it
// opens a database and prints how that went.
func TestHelperOpen(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("subprocess of TestOpenReadOnly")
	}
	fmt.Println(openResult(store.Open(context.Background(), path)))
}

// openResult renders Open's outcome as "RESULT <kind> <message>".
func openResult(db *store.DB, err error) string {
	if err == nil {
		db.Close()
		return "RESULT ok"
	}
	kind := "other"
	switch {
	case errors.Is(err, store.ErrReadOnly):
		kind = "readonly"
	case errors.Is(err, store.ErrLocked):
		kind = "locked"
	case errors.Is(err, store.ErrCorrupt):
		kind = "corrupt"
	}
	return "RESULT " + kind + " " + err.Error()
}

// openUnprivileged opens the database at path as a user that file
// permissions apply to and returns openResult's line. Root ignores
// permission bits, so as root the open runs in a copy of the test binary
// started as nobody, after giving nobody the files, as an ordinary user
// owns their database.
func openUnprivileged(t *testing.T, dir, path string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		return openResult(store.Open(t.Context(), path))
	}
	// The test binary sits in a private build directory: copy it where
	// nobody can run it.
	bin := filepath.Join(t.TempDir(), "store.test")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	copyFile(t, self, bin, 0o755)
	for _, d := range []string{filepath.Dir(bin), filepath.Dir(filepath.Dir(bin)), filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Hand the database directory to nobody, keeping the modes the test set.
	err = filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	})
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.CommandContext(t.Context(), bin, "-test.run=^TestHelperOpen$", "-test.count=1")
	// GORACE: under -race the race runtime otherwise idles 1 s at exit.
	cmd.Env = append(os.Environ(), helperEnv+"="+path, "GORACE=atexit_sleep_ms=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	for line := range strings.Lines(string(out)) {
		if strings.HasPrefix(line, "RESULT ") {
			return strings.TrimSpace(line)
		}
	}
	t.Skipf("cannot run the check as an unprivileged user (running as root, which ignores file permissions): %v\n%s", err, out)
	return ""
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenReadOnly(t *testing.T) {
	tests := []struct {
		name     string
		existing bool        // whether the database exists before the read-only open
		fileMode os.FileMode // applied to an existing database file
		dirMode  os.FileMode // applied to its directory
	}{
		{"read-only file", true, 0o400, 0o700},
		{"read-only directory", true, 0o600, 0o500},
		{"read-only file and directory", true, 0o400, 0o500},
		{"new database in read-only directory", false, 0, 0o500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			path := filepath.Join(dir, "parley.db")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if tt.existing {
				db, err := store.Open(t.Context(), path)
				if err != nil {
					t.Fatal(err)
				}
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tt.fileMode); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(dir, tt.dirMode); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o700) }) // let TempDir's cleanup remove it

			got := openUnprivileged(t, dir, path)
			want := "RESULT readonly store: " + path + " is read-only"
			if !strings.HasPrefix(got, want) {
				t.Errorf("got  %s\nwant %s…", got, want)
			}
		})
	}
}
