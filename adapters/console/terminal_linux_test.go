//go:build linux

package console

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// openTerminal opens a pseudo-terminal cols columns wide and returns its
// terminal side, where a program writes.
func openTerminal(t *testing.T, cols int) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	fd := int(ptmx.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("the pseudo-terminal's number: %v", err)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: 24}); err != nil {
		t.Fatal(err)
	}
	return tty
}

// TestOnATerminal: output to a terminal renders Markdown, wrapped to the
// terminal's width as it is when a message starts; a dumb terminal gets
// the text as written.
func TestOnATerminal(t *testing.T) {
	tty := openTerminal(t, 72)
	env := map[string]string{"TERM": "xterm-256color"}
	m := newMarkdown(tty, func(k string) string { return env[k] })
	if m == nil {
		t.Fatal("a terminal gets no rendering")
	}
	if w := m.width(); w != 72 {
		t.Errorf("width %d, want 72", w)
	}
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: 100, Row: 24}); err != nil {
		t.Fatal(err)
	}
	if w := m.width(); w != 100 {
		t.Errorf("width after a resize %d, want 100", w)
	}
	if a := New(Config{Out: tty, User: ana}); a.screen.md == nil {
		t.Error("the console on a terminal renders nothing")
	}
	env["TERM"] = "dumb"
	if newMarkdown(tty, func(k string) string { return env[k] }) != nil {
		t.Error("a dumb terminal gets escape sequences")
	}
}
