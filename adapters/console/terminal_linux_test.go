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

// TestOnATerminal: output to a terminal renders Markdown, with colours
// unless NO_COLOR is set; a dumb terminal gets the text as written.
func TestOnATerminal(t *testing.T) {
	tty := openTerminal(t, 72)
	for _, tt := range []struct {
		env    map[string]string
		colour bool
	}{
		{map[string]string{"TERM": "xterm-256color"}, true},
		{map[string]string{"TERM": "xterm-256color", "NO_COLOR": ""}, true},
		{map[string]string{"TERM": "xterm-256color", "NO_COLOR": "1"}, false},
		{nil, true},
	} {
		m := newMarkdown(tty, func(k string) string { return tt.env[k] })
		if m == nil {
			t.Fatalf("%v: a terminal gets no rendering", tt.env)
		}
		if m.colour != tt.colour {
			t.Errorf("%v: colour %v, want %v", tt.env, m.colour, tt.colour)
		}
	}
	if a := New(Config{Out: tty, User: ana}); a.screen.md == nil {
		t.Error("the console on a terminal renders nothing")
	}
	dumb := map[string]string{"TERM": "dumb"}
	if newMarkdown(tty, func(k string) string { return dumb[k] }) != nil {
		t.Error("a dumb terminal gets escape sequences")
	}
}
