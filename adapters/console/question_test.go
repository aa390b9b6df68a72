package console

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/parleybot/parley/chat"
)

var approvalButtons = []chat.Button{
	{Label: "Approve", Style: chat.ButtonPrimary, Data: "a:1234"},
	{Label: "Deny", Style: chat.ButtonDanger, Data: "d:1234"},
}

// approvalTurn streams a little, posts an approval as the core does and
// waits for the click to edit it, then finishes the answer.
func approvalTurn(a *Adapter, decided <-chan string, asked func()) func(context.Context, chat.Message) {
	return func(ctx context.Context, m chat.Message) {
		s, _ := a.StartStream(ctx, m.Thread, m.User)
		s.Append(ctx, "Let me check.")
		a.Send(ctx, m.Thread, chat.Out{Text: "Approval needed: rm -rf build/", Buttons: approvalButtons})
		// Streamed after the question is asked: held until it is answered.
		s.Append(ctx, " Waiting.")
		if asked != nil {
			asked()
		}
		d, ok := <-decided
		if !ok {
			d = "none"
		}
		s.Finish(ctx, chat.Out{Text: "Let me check. Waiting. " + d})
	}
}

// TestQuestions: an approval is asked as y/N; y or yes clicks Approve,
// anything else (the end of input too) Deny, as the operator, on the
// approval's own message; the edit shows the decision; what the answer
// printed meanwhile waits until the question is answered.
func TestQuestions(t *testing.T) {
	tests := []struct {
		answer string // "" with eof: the input ends at the question
		eof    bool
		data   string
		echo   string
	}{
		{answer: "y", data: "a:1234", echo: "y"},
		{answer: "YES", data: "a:1234", echo: "YES"},
		{answer: " yes ", data: "a:1234", echo: " yes "},
		{answer: "n", data: "d:1234", echo: "n"},
		{answer: "", data: "d:1234"},
		{answer: "sure", data: "d:1234", echo: "sure"},
		{answer: "yes please", data: "d:1234", echo: "yes please"},
		{answer: "/quit", data: "d:1234", echo: "/quit"},
		{eof: true, data: "d:1234"},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			// The answer is typed once the turn has asked and streamed on,
			// as a person reads the question first; typed earlier, the
			// click could overtake the turn's own output.
			r, w := io.Pipe()
			go w.Write([]byte("clean up\n"))
			answer := func() {
				go func() {
					if !tt.eof {
						w.Write([]byte(tt.answer + "\n"))
					}
					w.Close()
				}()
			}
			a, core, out := newConsole(r, false)
			decided := make(chan string, 1)
			core.turn = approvalTurn(a, decided, answer)
			core.click = func(ctx context.Context, act chat.Action) {
				a.Edit(ctx, act.Message, chat.Out{Text: "Decided: " + act.Data})
				decided <- act.Data
			}
			runAll(t, a, core)
			acts := core.actions()
			if len(acts) != 1 {
				t.Fatalf("actions %+v, want one", acts)
			}
			act := acts[0]
			if act.Data != tt.data || act.User != ana || act.Thread != a.Thread() || act.Message.Thread != a.Thread() ||
				!strings.HasPrefix(act.Key, "console:") || act.Key == core.msgs[0].Key {
				t.Errorf("action %+v", act)
			}
			want := banner + "Let me check.\nApproval needed: rm -rf build/\nApprove? [y/N] " + tt.echo + "\n" +
				" Waiting.\nDecided: " + tt.data + "\n " + tt.data + "\n"
			if out.String() != want {
				t.Errorf("output:\n%q\nwant:\n%q", out.String(), want)
			}
		})
	}
}

// TestQuestionAtATerminal: a terminal shows the answer as it is typed,
// Enter included, so nothing is echoed and no line is added.
func TestQuestionAtATerminal(t *testing.T) {
	a, core, out := newConsole(strings.NewReader("clean up\ny\n"), true)
	decided := make(chan string, 1)
	core.turn = approvalTurn(a, decided, nil)
	core.click = func(ctx context.Context, act chat.Action) {
		a.Edit(ctx, act.Message, chat.Out{Text: "Decided: " + act.Data})
		decided <- act.Data
	}
	runAll(t, a, core)
	// What the terminal shows besides: "clean up⏎" after the first prompt,
	// "y⏎" after the question.
	want := banner + "› Let me check.\nApproval needed: rm -rf build/\nApprove? [y/N] " +
		" Waiting.\nDecided: a:1234\n a:1234\n› \n"
	if out.String() != want {
		t.Errorf("output:\n%q\nwant:\n%q", out.String(), want)
	}
}

// TestOneButton: a question with one button (forget everything?) clicks it
// on y and nothing otherwise.
func TestOneButton(t *testing.T) {
	for _, tt := range []struct {
		answer string
		clicks []string
	}{
		{"y", []string{"mc:token"}},
		{"n", nil},
	} {
		t.Run(tt.answer, func(t *testing.T) {
			a, core, out := newConsole(strings.NewReader("/memory clear\n"+tt.answer+"\nhi\n"), false)
			cmd := &oneButtonCore{fakeCore: core}
			runAll(t, a, cmd)
			var clicks []string
			for _, act := range core.actions() {
				clicks = append(clicks, act.Data)
			}
			if !slices.Equal(clicks, tt.clicks) {
				t.Errorf("clicks %q, want %q", clicks, tt.clicks)
			}
			if !strings.Contains(out.String(), "Are you sure?\nForget everything? [y/N] "+tt.answer+"\n") {
				t.Errorf("output:\n%s", out.String())
			}
			if got := core.texts(); !slices.Equal(got, []string{"hi"}) {
				t.Errorf("messages %q: the line after the answer is a message", got)
			}
		})
	}
}

// oneButtonCore answers commands with a one-button confirmation.
type oneButtonCore struct{ *fakeCore }

func (c *oneButtonCore) HandleCommand(ctx context.Context, cmd chat.Command) error {
	return cmd.Respond(ctx, chat.Out{Text: "Are you sure?", Buttons: []chat.Button{{Label: "Forget everything", Data: "mc:token"}}})
}

// TestTypedYesApprovesNothing: "yes" outside a question is a message.
func TestTypedYesApprovesNothing(t *testing.T) {
	a, core, _ := newConsole(strings.NewReader("yes\n"), false)
	runAll(t, a, core)
	if got := core.texts(); !slices.Equal(got, []string{"yes"}) || len(core.actions()) != 0 {
		t.Errorf("messages %q, actions %+v", got, core.actions())
	}
}

// TestQuestionSettledElsewhere: an approval that expires while asked takes
// no answer; the next line is an ordinary one.
func TestQuestionSettledElsewhere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		a, core, out := newConsole(pr, false)
		refs := make(chan chat.MessageRef, 1)
		core.turn = func(ctx context.Context, m chat.Message) {
			if m.Text == "clean up" {
				ref, _ := a.Send(ctx, m.Thread, chat.Out{Text: "Approval needed", Buttons: approvalButtons})
				refs <- ref
			}
		}
		done := make(chan error, 1)
		go func() { done <- a.Run(t.Context(), core) }()
		io.WriteString(pw, "clean up\n")
		synctest.Wait()
		if a.screen.question() == nil {
			t.Fatal("no question asked")
		}
		a.Edit(t.Context(), <-refs, chat.Out{Text: "Expired"})
		synctest.Wait()
		io.WriteString(pw, "y\n")
		pw.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if len(core.actions()) != 0 || !slices.Equal(core.texts(), []string{"clean up", "y"}) {
			t.Errorf("actions %+v, messages %q", core.actions(), core.texts())
		}
		if want := banner + "Approval needed\nApprove? [y/N] \nExpired\n"; out.String() != want {
			t.Errorf("output:\n%q\nwant:\n%q", out.String(), want)
		}
	})
}

// TestInterruptAtQuestion: Ctrl-C while an approval waits denies it and
// stops the answer.
func TestInterruptAtQuestion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		a, core, _ := newConsole(pr, false)
		interrupts := make(chan struct{})
		a.cfg.Interrupts = interrupts
		decided := make(chan string, 1)
		core.turn = approvalTurn(a, decided, nil)
		core.click = func(_ context.Context, act chat.Action) { decided <- act.Data }
		done := make(chan error, 1)
		go func() { done <- a.Run(t.Context(), core) }()
		io.WriteString(pw, "clean up\n")
		synctest.Wait()
		interrupts <- struct{}{}
		synctest.Wait()
		if acts := core.actions(); len(acts) != 1 || acts[0].Data != "d:1234" {
			t.Errorf("actions %+v, want a denial", acts)
		}
		if cmds := core.commands(); len(cmds) != 1 || cmds[0].Name != "stop" {
			t.Errorf("commands %+v, want /stop", cmds)
		}
		pw.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}
