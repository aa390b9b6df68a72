package bottest

import (
	"slices"

	"github.com/parleybot/parley/chat"
)

// Messages returns the messages the bot posted in t, in the order they
// were sent, as they show now.
func (a *Adapter) Messages(t chat.Thread) []Msg {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []Msg
	for _, id := range a.order {
		if m := a.msgs[id]; m.Ref.Thread == t {
			out = append(out, a.copyMsg(m))
		}
	}
	return out
}

// AllMessages returns every message the bot posted, in send order.
func (a *Adapter) AllMessages() []Msg {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Msg, 0, len(a.order))
	for _, id := range a.order {
		out = append(out, a.copyMsg(a.msgs[id]))
	}
	return out
}

func (a *Adapter) copyMsg(m *Msg) Msg {
	c := *m
	c.Buttons = slices.Clone(m.Buttons)
	return c
}

// Calls returns every call, failed ones included, in order.
func (a *Adapter) Calls() []Call {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.calls)
}

// Sent returns the Send calls that created a message (including those that
// then reported an error).
func (a *Adapter) Sent() []Call { return a.applied(OpSend) }

// Edits returns the Edit calls that took effect.
func (a *Adapter) Edits() []Call { return a.applied(OpEdit) }

// Private returns the SendPrivate calls that took effect.
func (a *Adapter) Private() []Call { return a.applied(OpSendPrivate) }

// Typings returns the Typing calls that took effect.
func (a *Adapter) Typings() []Call { return a.applied(OpTyping) }

func (a *Adapter) applied(op Op) []Call {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []Call
	for _, c := range a.calls {
		if c.Op == op && c.Applied {
			out = append(out, c)
		}
	}
	return out
}

// Count returns how many calls of op took effect, even with
// Config.DiscardCalls.
func (a *Adapter) Count(op Op) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.counts[op]
}

// RateLimited returns how many calls the fake's own rate limit refused
// (injected 429s are not counted).
func (a *Adapter) RateLimited() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.rateLimited
}

// Duplicate is one text shown by more than one message of a thread.
type Duplicate struct {
	Thread chat.Thread
	Text   string
	Refs   []chat.MessageRef
}

// DuplicateFinals returns every text that two or more messages of one
// thread show now: the same answer posted twice. An answer split into
// parts is not a duplicate, since each part is different text.
func (a *Adapter) DuplicateFinals() []Duplicate {
	a.mu.Lock()
	defer a.mu.Unlock()
	type key struct {
		t    chat.Thread
		text string
	}
	seen := map[key][]chat.MessageRef{}
	var keys []key
	for _, id := range a.order {
		m := a.msgs[id]
		k := key{m.Ref.Thread, m.Text}
		if _, ok := seen[k]; !ok {
			keys = append(keys, k)
		}
		seen[k] = append(seen[k], m.Ref)
	}
	var out []Duplicate
	for _, k := range keys {
		if refs := seen[k]; len(refs) > 1 {
			out = append(out, Duplicate{Thread: k.t, Text: k.text, Refs: refs})
		}
	}
	return out
}
