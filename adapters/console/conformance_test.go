package console_test

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/console"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
)

// TestConformance runs the adapter conformance suite against the terminal,
// typing into a pipe. What a terminal is decides which checks apply: it has
// one conversation with one person, the operator, and it prints without
// ever taking anything back. The checks that do not apply are skipped
// (the console's own tests cover what they would have checked of it):
//
//   - send and edit, length limits: both read an edited message back as
//     one message changed in place; a terminal prints the new text below,
//     or only what it adds (TestSendEdit, TestTooLong).
//   - mass mentions neutralized: a terminal notifies no one.
//   - links not previewed: a terminal fetches nothing.
//   - buttons: two people click one message; the terminal has one person,
//     whose click is the y/N answer to the question (TestQuestions).
//   - private messages: the terminal is its one person's, so there is no
//     one to hide a message from.
//   - rate limit: a terminal never refuses a write.
//
// markdown rendered skips itself: the terminal shows Markdown as the model
// writes it. Of the inbound checks only what a terminal delivers runs (the
// operator's lines, direct); the harness answers the rest ErrUnsupported.
func TestConformance(t *testing.T) {
	bottest.RunConformance(t, newConsoleHarness,
		bottest.Skip{Check: "send and edit", Why: "a terminal cannot change what it printed: an edit prints below"},
		bottest.Skip{Check: "short answer", Why: "a terminal is unpaced, so its answers stream from the first word, and the suite cannot read its screen back"},
		bottest.Skip{Check: "length limits", Why: "the check reads an edit back in place, which a terminal cannot show"},
		bottest.Skip{Check: "mass mentions neutralized", Why: "a terminal notifies no one"},
		bottest.Skip{Check: "links not previewed", Why: "a terminal fetches nothing: it prints the link"},
		bottest.Skip{Check: "buttons", Why: "the terminal has one person, whose click is the y/N answer"},
		bottest.Skip{Check: "private messages", Why: "the terminal is one person's: there is no one to hide from"},
		bottest.Skip{Check: "rate limit", Why: "a terminal never refuses a write"},
	)
}

// consoleHarness types into the terminal through a pipe.
type consoleHarness struct {
	ad       *console.Adapter
	operator chat.User
	in       *io.PipeWriter
	writing  sync.Mutex // one line at a time, in order
}

func newConsoleHarness(t *testing.T) bottest.Harness {
	pr, pw := io.Pipe()
	// Runs after the suite has stopped Run (cleanups run last first), and
	// releases a line Run never read.
	t.Cleanup(func() { pw.Close() })
	operator := chat.User{Platform: console.Platform, ID: "alice", Name: "alice"}
	ad := console.New(console.Config{In: pr, Out: io.Discard, User: operator, Now: func() time.Time { return time.Unix(0, 42) }})
	return &consoleHarness{ad: ad, operator: operator, in: pw}
}

func (h *consoleHarness) Adapter() chat.Adapter { return h.ad }

func (h *consoleHarness) User(name string) chat.User {
	return chat.User{Platform: console.Platform, ID: name, Name: name}
}

// Thread is the terminal's one conversation, whatever the kind: the checks
// that need a group of people are skipped.
func (h *consoleHarness) Thread(bottest.ThreadKind, chat.User) chat.Thread { return h.ad.Thread() }

// UserMessage types the operator's line. Run takes the next line only once
// the last one is answered, which the suite's handler never does, so the
// line is typed in the background.
func (h *consoleHarness) UserMessage(_ context.Context, m bottest.MessageSpec) (string, error) {
	if m.From.ID != h.operator.ID || m.Thread != h.ad.Thread() || m.Mention || m.FromBot || m.Twice {
		return "", errors.Join(bottest.ErrUnsupported,
			errors.New("a terminal has one person, who types each line once, mentions no one and is no bot"))
	}
	go func() {
		h.writing.Lock()
		defer h.writing.Unlock()
		io.WriteString(h.in, m.Text+"\n")
	}()
	return "", nil // the id is the console's own, known once the line is read
}

// Click, Visible, PrivateTo and RateLimitNext serve only the skipped
// checks.

func (h *consoleHarness) Click(context.Context, chat.MessageRef, int, chat.User) error {
	return errors.New("console harness: a click is the operator's y/N answer (the buttons check is skipped)")
}

func (h *consoleHarness) Visible(chat.Thread) []bottest.Visible { return nil }

func (h *consoleHarness) PrivateTo(chat.User) []string { return nil }

func (h *consoleHarness) RateLimitNext(bottest.Op, time.Duration) {
	panic("console harness: a terminal has no rate limit (the rate limit check is skipped)")
}

func (h *consoleHarness) RendersMarkdown() bool { return false }
