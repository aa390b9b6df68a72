// Package harden holds process-wide protections Parley applies to itself
// at startup.
package harden

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// NonDumpable marks the process non-dumpable. Parley holds the model key
// and platform tokens in its environment and memory; a non-dumpable
// process's /proc/<pid>/environ, mem, maps and fd links are readable only
// with CAP_SYS_PTRACE, and ptrace attach needs it too, so a program
// running as the same user (an approved shell command, whose capabilities
// the sandbox drops even when Parley is root) cannot read them. It also
// means no core dumps, which would hold the same secrets.
//
// The flag is reset by execve, so children Parley starts are unaffected.
// The cost: /proc/self/* files become owned by root, so Parley must not
// depend on reading its own /proc files beyond what the process itself
// may always see (it does not), and debuggers need root.
func NonDumpable() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE, 0): %w", err)
	}
	return nil
}
