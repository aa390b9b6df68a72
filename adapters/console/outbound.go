package console

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/parleybot/parley/chat"
)

// message is one of the bot's messages as the terminal shows it. A
// terminal cannot take back what it printed: an edit that only adds to the
// text prints the addition in place when nothing was printed since, and
// otherwise prints the new text below.
type message struct {
	printed string    // its text as last printed; "" before anything was
	ask     *question // its buttons, while they wait for an answer
}

// keptMessages bounds the messages remembered for edits: the core edits
// recent ones (the reply being written, an approval before it expires),
// and an edit of a forgotten one is printed like a new message.
const keptMessages = 256

var (
	_ chat.Adapter       = (*Adapter)(nil)
	_ chat.Streamer      = (*Adapter)(nil)
	_ chat.StatusShower  = (*Adapter)(nil)
	_ chat.AnswerWatcher = (*Adapter)(nil)
)

// Send prints out as a new message. The delivery's placeholder, posted
// before an answer's text, prints nothing: the edit that follows prints
// the text. A message with buttons asks its question once it is shown.
func (a *Adapter) Send(_ context.Context, t chat.Thread, out chat.Out) (chat.MessageRef, error) {
	out.Text = withMentions(out)
	if err := fits(out.Text); err != nil {
		return chat.MessageRef{}, err
	}
	ref := chat.MessageRef{Thread: t, ID: a.newID()}
	m := a.remember(ref.ID)
	if out.Text == chat.Placeholder && len(out.Buttons) == 0 {
		return ref, nil
	}
	a.show(m, ref, out)
	return ref, nil
}

// Edit prints the message's new text: in place when it only adds to what
// the terminal shows last, below it otherwise. A question the message was
// asking is dropped: its outcome is the new text (an approval decided,
// expired).
func (a *Adapter) Edit(_ context.Context, ref chat.MessageRef, out chat.Out) error {
	out.Text = withMentions(out)
	if err := fits(out.Text); err != nil {
		return err
	}
	a.mu.Lock()
	m, ok := a.msgs[ref.ID]
	a.mu.Unlock()
	if !ok {
		// A message of an earlier run, long off the screen: show its new
		// text like a new message.
		m = a.remember(ref.ID)
	}
	a.mu.Lock()
	q, printed := m.ask, m.printed
	m.ask = nil
	a.mu.Unlock()
	if q != nil {
		a.screen.drop(q)
	}
	text := trimEnd(out.Text)
	if rest, ok := strings.CutPrefix(text, printed); ok && printed != "" && len(out.Buttons) == 0 {
		if a.screen.extend(piece{text: rest, owner: m, md: true}) {
			a.mu.Lock()
			m.printed = text
			a.mu.Unlock()
			return nil
		}
	}
	a.show(m, ref, out)
	return nil
}

// SendPrivate prints out: the terminal is its one person's.
func (a *Adapter) SendPrivate(_ context.Context, t chat.Thread, _ chat.User, out chat.Out) error {
	out.Text = withMentions(out)
	if err := fits(out.Text); err != nil {
		return err
	}
	ref := chat.MessageRef{Thread: t, ID: a.newID()}
	a.show(a.remember(ref.ID), ref, out)
	return nil
}

// respond is a command's answer, printed where it was typed.
func (a *Adapter) respond(ctx context.Context, out chat.Out) error {
	return a.SendPrivate(ctx, a.thread, a.cfg.User, out)
}

// Typing does nothing: the prompt does not come back until the answer is
// written, which says as much.
func (a *Adapter) Typing(context.Context, chat.Thread) error { return nil }

// ShowStatus prints a progress status on a line of its own.
func (a *Adapter) ShowStatus(_ context.Context, _ chat.Thread, status string) error {
	if status != "" {
		a.screen.print(piece{text: "  · " + status, fresh: true})
	}
	return nil
}

// show prints out as m's text, on a line of its own, with its question.
func (a *Adapter) show(m *message, ref chat.MessageRef, out chat.Out) {
	p := piece{text: trimEnd(out.Text), fresh: true, owner: m, md: true}
	a.mu.Lock()
	m.printed = p.text
	if len(out.Buttons) > 0 {
		m.ask = &question{ref: ref, buttons: out.Buttons}
		p.ask = m.ask
	}
	a.mu.Unlock()
	a.screen.print(p)
}

// remember records a new message under id.
func (a *Adapter) remember(id string) *message {
	m := &message{}
	a.keep(id, m)
	return m
}

// keep records m under id, forgetting the oldest beyond keptMessages.
func (a *Adapter) keep(id string, m *message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.msgs[id] = m
	a.order = append(a.order, id)
	if len(a.order) > keptMessages {
		delete(a.msgs, a.order[0])
		a.order = a.order[1:]
	}
}

// withMentions is out's text after its Mentions, each as @Name: a
// terminal has one person and nobody to notify, so a mention only says
// who the message is for.
func withMentions(out chat.Out) string {
	return out.WithMentions(out.Text, func(u chat.User) string {
		return "@" + cmp.Or(strings.TrimLeft(u.Name, "@"), u.ID)
	})
}

// trimEnd drops what a terminal would not show at the end of a message.
func trimEnd(s string) string { return strings.TrimRight(s, " \t\n") }

// fits refuses text longer than the terminal's MaxLen: the core splits
// answers below it, and an adapter never cuts a message short.
func fits(text string) error {
	if n := utf8.RuneCountInString(text); n > maxLen {
		return fmt.Errorf("console: a message of %d characters is longer than the %d a message may have", n, maxLen)
	}
	return nil
}

// Answered ends the wait for the answer to the line key, if Run waits for
// it.
func (a *Adapter) Answered(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if key == a.waiting {
		a.waiting = ""
		a.poke()
	}
}
