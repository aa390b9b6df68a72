package console

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/syncbuf"
)

var ana = chat.User{Platform: Platform, ID: "ana", Name: "ana"}

// fakeCore plays the chat core's part: it records what the console hands
// it and answers through the console's outbound side, as the core does.
// A message's turn runs in a goroutine of its own, then Answered.
type fakeCore struct {
	a *Adapter
	// turn answers a message (nil: nothing is shown).
	turn func(ctx context.Context, m chat.Message)
	// click acts on a click (nil: nothing happens).
	click func(ctx context.Context, act chat.Action)

	mu   sync.Mutex
	msgs []chat.Message
	cmds []chat.Command
	acts []chat.Action
}

func (f *fakeCore) HandleMessage(ctx context.Context, m chat.Message) error {
	f.mu.Lock()
	f.msgs = append(f.msgs, m)
	f.mu.Unlock()
	go func() {
		if f.turn != nil {
			f.turn(context.WithoutCancel(ctx), m)
		}
		f.a.Answered(m.Key)
	}()
	return nil
}

func (f *fakeCore) HandleCommand(ctx context.Context, c chat.Command) error {
	f.mu.Lock()
	f.cmds = append(f.cmds, c)
	f.mu.Unlock()
	if c.Name == "boom" {
		return errors.New("no such thing")
	}
	return c.Respond(ctx, chat.Out{Text: "ok: " + c.Name})
}

func (f *fakeCore) HandleAction(ctx context.Context, act chat.Action) error {
	f.mu.Lock()
	f.acts = append(f.acts, act)
	f.mu.Unlock()
	if f.click != nil {
		f.click(ctx, act)
	}
	return nil
}

func (f *fakeCore) texts() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, m := range f.msgs {
		out = append(out, m.Text)
	}
	return out
}

func (f *fakeCore) commands() []chat.Command {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.cmds)
}

func (f *fakeCore) actions() []chat.Action {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.acts)
}

// answerWith is a turn that streams text and finishes with it.
func answerWith(a *Adapter, text string) func(context.Context, chat.Message) {
	return func(ctx context.Context, m chat.Message) {
		s, _ := a.StartStream(ctx, m.Thread, m.User)
		s.Append(ctx, text)
		s.Finish(ctx, chat.Out{Text: text})
	}
}

// newConsole returns the console over in and its output, with a fakeCore.
func newConsole(in io.Reader, interactive bool) (*Adapter, *fakeCore, *syncbuf.Buffer) {
	out := &syncbuf.Buffer{}
	a := New(Config{In: in, Out: out, User: ana, Interactive: interactive})
	return a, &fakeCore{a: a}, out
}

// runAll runs the console over input until it returns.
func runAll(t *testing.T, a *Adapter, core chat.Handler) {
	t.Helper()
	if err := a.Run(t.Context(), core); err != nil {
		t.Fatal(err)
	}
}

const banner = "Parley: talking with ana. /help for commands, /quit to leave.\n"

// TestLines: each line goes to the core as what it is, and the output is
// the answers in order.
func TestLines(t *testing.T) {
	tests := []struct {
		name     string
		input    string
		messages []string
		commands []string // name and args
		out      string
	}{
		{"messages", "hello\n  how are you?  \n\n", []string{"hello", "how are you?"}, nil,
			banner + "re: hello\nre: how are you?\n"},
		{"commands", "/memory forget 2\n!new\n/boom\n", nil, []string{"memory forget 2", "new", "boom"},
			banner + "ok: memory\nok: new\nerror: no such thing\n"},
		{"a path is not a command", "/etc/passwd is gone\n", []string{"/etc/passwd is gone"}, nil,
			banner + "re: /etc/passwd is gone\n"},
		{"quit", "hi\n/quit\nnever read\n", []string{"hi"}, nil, banner + "re: hi\n"},
		{"exit", "/exit\n/help\n", nil, nil, banner},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, core, out := newConsole(strings.NewReader(tt.input), false)
			core.turn = func(ctx context.Context, m chat.Message) { answerWith(a, "re: "+m.Text)(ctx, m) }
			runAll(t, a, core)
			if got := core.texts(); !slices.Equal(got, tt.messages) {
				t.Errorf("messages %q, want %q", got, tt.messages)
			}
			var cmds []string
			for _, c := range core.cmds {
				cmds = append(cmds, strings.Join(append([]string{c.Name}, c.Args...), " "))
			}
			if !slices.Equal(cmds, tt.commands) {
				t.Errorf("commands %q, want %q", cmds, tt.commands)
			}
			if got := out.String(); got != tt.out {
				t.Errorf("output:\n%s\nwant:\n%s", got, tt.out)
			}
		})
	}
}

// TestEventsAreNormalized: messages and commands name the operator and the
// one conversation, and every event has a key of its own.
func TestEventsAreNormalized(t *testing.T) {
	a, core, _ := newConsole(strings.NewReader("one\n/status\none\n"), false)
	runAll(t, a, core)
	thread := chat.Thread{Platform: Platform, Chat: "ana"}
	keys := map[string]bool{}
	for _, m := range core.msgs {
		if m.Thread != thread || m.User != ana || !m.Direct || m.Place.ChatKind != "terminal" || m.ID == "" {
			t.Errorf("message %+v", m)
		}
		keys[m.Key] = true
	}
	for _, c := range core.cmds {
		if c.Thread != thread || c.User != ana || !c.Direct || c.Respond == nil {
			t.Errorf("command %+v", c)
		}
		keys[c.Key] = true
	}
	for k := range keys {
		if !strings.HasPrefix(k, "console:"+a.run+":") {
			t.Errorf("key %q is not of this run", k)
		}
	}
	if len(keys) != 3 {
		t.Errorf("%d distinct keys for 3 lines: %v", len(keys), keys)
	}
}

// TestWaitsForAnswer: the next line is read only once the answer to the
// one before is shown, so answers never interleave; the end of input
// waits for the answer too.
func TestWaitsForAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, core, out := newConsole(strings.NewReader("one\ntwo\n"), false)
		release := make(chan struct{})
		core.turn = func(ctx context.Context, m chat.Message) {
			s, _ := a.StartStream(ctx, m.Thread, m.User)
			s.Append(ctx, "answer to "+m.Text)
			<-release
			s.Finish(ctx, chat.Out{Text: "answer to " + m.Text + "."})
		}
		done := make(chan error, 1)
		go func() { done <- a.Run(t.Context(), core) }()
		synctest.Wait()
		if got := core.texts(); !slices.Equal(got, []string{"one"}) {
			t.Fatalf("while the first answer is written the core has %q", got)
		}
		release <- struct{}{}
		synctest.Wait()
		if got := core.texts(); !slices.Equal(got, []string{"one", "two"}) {
			t.Fatalf("after the first answer the core has %q", got)
		}
		select {
		case <-done:
			t.Fatal("Run returned at the end of input while an answer was written")
		default:
		}
		release <- struct{}{}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if want := banner + "answer to one.\nanswer to two.\n"; out.String() != want {
			t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
		}
	})
}

// TestInteractivePrompt: a terminal gets a prompt whenever Parley waits
// for a line, not while it answers.
func TestInteractivePrompt(t *testing.T) {
	a, core, out := newConsole(strings.NewReader("hi\n/help\n"), true)
	core.turn = answerWith(a, "Hello.")
	runAll(t, a, core)
	// The terminal echoes what is typed (not in this output) and the Enter
	// moves to the next line.
	if want := banner + "› Hello.\n› ok: help\n› \n"; out.String() != want {
		t.Errorf("output:\n%q\nwant:\n%q", out.String(), want)
	}
}

// TestInterrupts: Ctrl-C at the prompt quits; during an answer it sends
// the core /stop, whose own reply is not printed, and the chat goes on.
func TestInterrupts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		a, core, out := newConsole(pr, false)
		interrupts := make(chan struct{})
		a.cfg.Interrupts = interrupts
		stopped := make(chan struct{})
		core.turn = func(ctx context.Context, m chat.Message) {
			s, _ := a.StartStream(ctx, m.Thread, m.User)
			s.Append(ctx, "Counting: one, two,")
			<-stopped
			s.Finish(ctx, chat.Out{Text: "Counting: one, two,\n\n_⏹ stopped_"})
		}
		done := make(chan error, 1)
		go func() { done <- a.Run(t.Context(), core) }()
		io.WriteString(pw, "count\n")
		synctest.Wait()
		interrupts <- struct{}{}
		synctest.Wait()
		if cmds := core.commands(); len(cmds) != 1 || cmds[0].Name != "stop" {
			t.Fatalf("commands after Ctrl-C during an answer: %+v", cmds)
		}
		close(stopped)
		synctest.Wait()
		interrupts <- struct{}{} // at the prompt
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if want := banner + "Counting: one, two,\n\n_⏹ stopped_\n"; out.String() != want {
			t.Errorf("output:\n%q\nwant:\n%q", out.String(), want)
		}
	})
}
