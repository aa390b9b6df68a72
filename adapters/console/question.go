package console

import (
	"context"
	"strings"

	"github.com/parleybot/parley/chat"
)

// question is a message's buttons, asked on the terminal as y/N: the
// approval of a tool call ("Approve? [y/N]"), the confirmation of /memory
// clear. Answering clicks a button, as a click would on a chat platform:
// the core gets a chat.Action and decides what it means. Typed text outside
// a question never clicks anything.
type question struct {
	ref     chat.MessageRef // the message the buttons are under
	buttons []chat.Button
	// settled is set, under the screen's lock, once the question takes no
	// more answers: answered, or its message edited.
	settled bool
}

// prompt asks for the first button: "Approve? [y/N] ".
func (q *question) prompt() string {
	return q.buttons[0].Label + "? [y/N] "
}

// choice is the button an answer clicks: y or yes click the first button;
// anything else, the end of input included, clicks the last one when
// there are several (Deny) and none when there is only one.
func (q *question) choice(answer string) (chat.Button, bool) {
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return q.buttons[0], true
	}
	if len(q.buttons) > 1 {
		return q.buttons[len(q.buttons)-1], true
	}
	return chat.Button{}, false
}

// answer settles q with the line typed, eof for the end of input, and
// hands the core the click it stands for, as the operator's.
func (a *Adapter) answer(ctx context.Context, h chat.Handler, q *question, line string, eof bool) {
	echo := ""
	if !a.cfg.Interactive && !eof {
		echo = line // a pipe: show what was answered
	}
	if !a.screen.answered(q, echo) {
		return
	}
	b, ok := q.choice(line)
	if !ok {
		return
	}
	act := chat.Action{Key: a.newKey(), Thread: q.ref.Thread, User: a.cfg.User, Data: b.Data, Message: q.ref}
	if err := h.HandleAction(ctx, act); err != nil {
		a.screen.print(piece{text: "error: " + err.Error(), fresh: true})
	}
}
