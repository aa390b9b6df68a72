package console

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/parleybot/parley/internal/syncbuf"

	"github.com/parleybot/parley/bot"
)

// scriptedCore plays a conversation against the console's Reply: it streams
// text and asks for one approval per message.
type scriptedCore struct {
	mu        sync.Mutex
	decisions []bool
	commands  []bot.Command
}

func (c *scriptedCore) Converse(ctx context.Context, m bot.Message, r bot.Reply) error {
	if err := r.Delta(ctx, "Let me "); err != nil {
		return err
	}
	if err := r.Delta(ctx, "check."); err != nil {
		return err
	}
	ok, err := r.(bot.Confirmer).Confirm(ctx, bot.ApprovalPrompt{Tool: "shell", Summary: "rm -rf build/", Requester: m.User.Name})
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.decisions = append(c.decisions, ok)
	c.mu.Unlock()
	if err := r.Progress(ctx, "running shell…"); err != nil {
		return err
	}
	return r.Finish(ctx, "Let me check.")
}

func (c *scriptedCore) Command(_ context.Context, cmd bot.Command) (string, error) {
	c.mu.Lock()
	c.commands = append(c.commands, cmd)
	c.mu.Unlock()
	if cmd.Name == "boom" {
		return "", errors.New("no such thing")
	}
	return "ok: " + cmd.Name, nil
}

func runConsole(t *testing.T, core Core, input string) string {
	t.Helper()
	var out bytes.Buffer
	c := &Console{Core: core, In: strings.NewReader(input), Out: &out, User: bot.User{Platform: "console", ID: "ana", Name: "ana"}}
	if err := c.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestConfirm(t *testing.T) {
	tests := []struct {
		answer string
		want   bool
	}{
		{"y", true}, {"YES", true}, {" yes ", true}, {"n", false}, {"", false}, {"sure", false}, {"yes please", false},
	}
	for _, tt := range tests {
		core := &scriptedCore{}
		out := runConsole(t, core, "clean up\n"+tt.answer+"\n")
		if len(core.decisions) != 1 || core.decisions[0] != tt.want {
			t.Errorf("answer %q: decisions %v, want [%v]\n%s", tt.answer, core.decisions, tt.want, out)
		}
		if !strings.Contains(out, "Let me check.\nParley wants to run shell:\n  rm -rf build/\nApprove? [y/N]") {
			t.Errorf("prompt not on its own line:\n%s", out)
		}
	}
}

// TestConfirmAtEndOfInput: input that ends at the prompt denies.
func TestConfirmAtEndOfInput(t *testing.T) {
	core := &scriptedCore{}
	runConsole(t, core, "clean up\n")
	if len(core.decisions) != 1 || core.decisions[0] {
		t.Fatalf("decisions %v, want a denial", core.decisions)
	}
}

func TestCommands(t *testing.T) {
	core := &scriptedCore{}
	out := runConsole(t, core, "/memory forget 2\n!new\n/boom\n/quit\n/never-reached\n")
	if len(core.commands) != 3 {
		t.Fatalf("commands %+v", core.commands)
	}
	if c := core.commands[0]; c.Name != "memory" || strings.Join(c.Args, " ") != "forget 2" || c.User.ID != "ana" || c.Thread.Platform != "console" {
		t.Fatalf("command %+v", c)
	}
	for _, want := range []string{"ok: memory", "ok: new", "error: no such thing"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestInterruptAtPromptQuits: Ctrl-C with no answer running leaves.
func TestInterruptAtPromptQuits(t *testing.T) {
	interrupts := make(chan struct{}, 1)
	interrupts <- struct{}{}
	pr, pw := io.Pipe()
	defer pw.Close()
	c := &Console{Core: &scriptedCore{}, In: pr, Out: io.Discard, User: bot.User{ID: "ana"}, Interrupts: interrupts}
	if err := c.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// stallCore streams, then waits for its context: an interrupt must cancel it.
type stallCore struct {
	scriptedCore
	started chan struct{}
}

func (c *stallCore) Converse(ctx context.Context, _ bot.Message, r bot.Reply) error {
	r.Delta(ctx, "thinking")
	close(c.started)
	<-ctx.Done()
	return ctx.Err()
}

func TestInterruptStopsAnswer(t *testing.T) {
	interrupts := make(chan struct{})
	pr, pw := io.Pipe()
	var out syncbuf.Buffer
	core := &stallCore{started: make(chan struct{})}
	c := &Console{Core: core, In: pr, Out: &out, User: bot.User{ID: "ana"}, Interrupts: interrupts}
	done := make(chan error, 1)
	go func() { done <- c.Run(t.Context()) }()
	io.WriteString(pw, "go\n")
	<-core.started
	interrupts <- struct{}{} // the running answer's watcher takes it
	io.WriteString(pw, "/quit\n")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if !strings.Contains(out.String(), "thinking\n[stopped]") {
		t.Fatalf("output:\n%s", out.String())
	}
}
