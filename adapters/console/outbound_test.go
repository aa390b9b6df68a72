package console

import (
	"context"
	"strings"
	"testing"

	"github.com/parleybot/parley/chat"
)

// step is one call the core makes on the console's outbound side.
type step struct {
	appendText string // Append to the stream (started at the first)
	status     string // ShowStatus
	finish     *string
}

func appendStep(s string) step { return step{appendText: s} }
func statusStep(s string) step { return step{status: s} }
func finishStep(s string) step { return step{finish: &s} }

// TestStream: a streamed answer prints as it is written; Finish prints
// only what the terminal does not show yet, and ends the line.
func TestStream(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
		want  string
	}{
		{"all appended", []step{appendStep("Hel"), appendStep("lo."), finishStep("Hello.")}, "Hello.\n"},
		{"the end not appended yet", []step{appendStep("Hel"), finishStep("Hello.")}, "Hello.\n"},
		{"nothing appended", []step{finishStep("Hello.")}, "Hello.\n"},
		{"a note after it (stopped)", []step{appendStep("Counting: one, two,"), finishStep("Counting: one, two,\n\n_⏹ stopped_")},
			"Counting: one, two,\n\n_⏹ stopped_\n"},
		{"a status line between", []step{appendStep("Let me check."), statusStep("running shell…"), appendStep("Done."), finishStep("Let me check.Done.")},
			"Let me check.\n  · running shell…\nDone.\n"},
		{"the final is the last step's, all shown", []step{appendStep("Let me check."), statusStep("running shell…"), appendStep("Done."), finishStep("Done.")},
			"Let me check.\n  · running shell…\nDone.\n"},
		{"the final is the last step's, partly shown", []step{appendStep("Let me check."), statusStep("running shell…"), appendStep("Do"), finishStep("Done.")},
			"Let me check.\n  · running shell…\nDone.\n"},
		{"the final is the last step's, none shown", []step{appendStep("Let me check."), statusStep("running shell…"), finishStep("Done.")},
			"Let me check.\n  · running shell…\nDone.\n"},
		{"a retry that wrote something else", []step{appendStep("It is 4"), statusStep("model call failed; retrying"), finishStep("It is 5.")},
			"It is 4\n  · model call failed; retrying\nIt is 5.\n"},
		{"a retry whose text is a different one", []step{appendStep("Let me see. It"), statusStep("model call failed; retrying"), finishStep("It is 5.")},
			"Let me see. It\n  · model call failed; retrying\nIt is 5.\n"},
		{"a status before any text", []step{statusStep("running memory…"), appendStep("Got it."), finishStep("Got it.")},
			"  · running memory…\nGot it.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _, out := newConsole(strings.NewReader(""), false)
			ctx := context.Background()
			var s chat.Stream
			for _, st := range tt.steps {
				if s == nil && st.status == "" {
					s, _ = a.StartStream(ctx, a.Thread(), ana)
				}
				switch {
				case st.status != "":
					a.ShowStatus(ctx, a.Thread(), st.status)
				case st.finish != nil:
					ref, err := s.Finish(ctx, chat.Out{Text: *st.finish})
					if err != nil || ref.ID == "" || ref.Thread != a.Thread() {
						t.Errorf("Finish = %+v, %v", ref, err)
					}
				default:
					s.Append(ctx, st.appendText)
				}
			}
			if out.String() != tt.want {
				t.Errorf("output:\n%q\nwant:\n%q", out.String(), tt.want)
			}
		})
	}
}

// TestSendEdit: a message prints on a line of its own; an edit prints in
// place what it adds when nothing came since, otherwise the new text below.
func TestSendEdit(t *testing.T) {
	type call struct {
		send, edit, private string // text; edit edits the last message sent
	}
	tests := []struct {
		name  string
		calls []call
		want  string
	}{
		{"a message", []call{{send: "Hello"}}, "Hello\n"},
		{"the placeholder waits for its edit", []call{{send: chat.Placeholder}, {edit: "\n\n_⚠️ the model is unavailable_"}}, "_⚠️ the model is unavailable_\n"},
		{"an edit that adds", []call{{send: "Hello"}, {edit: "Hello, world"}}, "Hello, world\n"},
		{"an edit that changes", []call{{send: "Hello"}, {edit: "Goodbye"}}, "Hello\nGoodbye\n"},
		{"an edit after something else", []call{{send: "Hello"}, {private: "a note"}, {edit: "Hello, world"}}, "Hello\na note\nHello, world\n"},
		{"an unchanged edit", []call{{send: "Hello"}, {edit: "Hello"}}, "Hello\n"},
		{"an edit after a trailing space", []call{{send: "Hello "}, {edit: "Hello world"}}, "Hello world\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _, out := newConsole(strings.NewReader(""), false)
			ctx := context.Background()
			var ref chat.MessageRef
			for _, c := range tt.calls {
				var err error
				switch {
				case c.send != "":
					ref, err = a.Send(ctx, a.Thread(), chat.Out{Text: c.send})
				case c.edit != "":
					err = a.Edit(ctx, ref, chat.Out{Text: c.edit})
				default:
					err = a.SendPrivate(ctx, a.Thread(), ana, chat.Out{Text: c.private})
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			a.screen.close()
			if out.String() != tt.want {
				t.Errorf("output:\n%q\nwant:\n%q", out.String(), tt.want)
			}
		})
	}
}

// TestMentions: the terminal shows Mentions as @Name before the text, each
// once, in Send, Edit and SendPrivate; without them the text is as
// before.
func TestMentions(t *testing.T) {
	bo := chat.User{Platform: Platform, ID: "bo", Name: "Bo"}
	tests := []struct {
		name string
		out  chat.Out
		want string
	}{
		{"mentions, each once", chat.Out{Text: "standup in 5 minutes", Mentions: []chat.User{ana, bo, ana}}, "@" + ana.Name + " @Bo standup in 5 minutes\n"},
		{"no name shows the id", chat.Out{Text: "hi", Mentions: []chat.User{{ID: "cy"}, {Name: "@dee"}}}, "@cy @dee hi\n"},
		{"only mentions", chat.Out{Mentions: []chat.User{bo}}, "@Bo\n"},
		{"empty mentions", chat.Out{Text: "<@U1> @everyone", Mentions: []chat.User{}}, "<@U1> @everyone\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			for _, call := range []func(a *Adapter) error{
				func(a *Adapter) error { _, err := a.Send(ctx, a.Thread(), tt.out); return err },
				func(a *Adapter) error { return a.Edit(ctx, chat.MessageRef{Thread: a.Thread(), ID: "1:7"}, tt.out) },
				func(a *Adapter) error { return a.SendPrivate(ctx, a.Thread(), ana, tt.out) },
			} {
				a, _, out := newConsole(strings.NewReader(""), false)
				if err := call(a); err != nil {
					t.Fatal(err)
				}
				a.screen.close()
				if out.String() != tt.want {
					t.Errorf("output %q, want %q", out.String(), tt.want)
				}
			}
		})
	}
}

// TestEditOfAnEarlierRun: an approval of an earlier run expiring now edits
// a message this run never printed: its new text is shown.
func TestEditOfAnEarlierRun(t *testing.T) {
	a, _, out := newConsole(strings.NewReader(""), false)
	ref := chat.MessageRef{Thread: a.Thread(), ID: "1:7"}
	if err := a.Edit(context.Background(), ref, chat.Out{Text: "Expired"}); err != nil {
		t.Fatal(err)
	}
	a.screen.close()
	if out.String() != "Expired\n" {
		t.Errorf("output %q", out.String())
	}
}

// TestTooLong: the terminal refuses what the core would never send, as a
// platform does: the core splits answers below MaxLen.
func TestTooLong(t *testing.T) {
	a, _, out := newConsole(strings.NewReader(""), false)
	ctx := context.Background()
	long := strings.Repeat("x", a.Capabilities().MaxLen+1)
	ref, err := a.Send(ctx, a.Thread(), chat.Out{Text: "short"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(ctx, a.Thread(), chat.Out{Text: long}); err == nil {
		t.Error("Send of MaxLen+1 characters succeeded")
	}
	if err := a.Edit(ctx, ref, chat.Out{Text: long}); err == nil {
		t.Error("Edit to MaxLen+1 characters succeeded")
	}
	if err := a.SendPrivate(ctx, a.Thread(), ana, chat.Out{Text: long}); err == nil {
		t.Error("SendPrivate of MaxLen+1 characters succeeded")
	}
	a.screen.close()
	if out.String() != "short\n" {
		t.Errorf("output %q", out.String())
	}
}
