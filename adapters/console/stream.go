package console

import (
	"context"
	"strings"

	"github.com/parleybot/parley/chat"
)

// StreamsIn is true: the terminal prints an answer as it is written.
func (a *Adapter) StreamsIn(chat.Thread) bool { return true }

// StartStream starts printing an answer.
func (a *Adapter) StartStream(_ context.Context, t chat.Thread, _ chat.User) (chat.Stream, error) {
	return &stream{a: a, t: t, m: &message{}}, nil
}

// stream prints one answer as the model writes it. Delivery calls Append
// and then Finish from one goroutine at a time.
type stream struct {
	a *Adapter
	t chat.Thread
	m *message // the answer's text on the terminal
	// printed is what the appends printed; since is where in it begins
	// the text printed after the last interruption (a status line, an
	// approval).
	printed string
	since   int
}

// Append prints delta where the answer's text ends, or on a new line when
// something else was printed since.
func (s *stream) Append(_ context.Context, delta string) error {
	if delta == "" {
		return nil
	}
	if s.a.screen.print(piece{text: delta, cont: true, owner: s.m, md: true, partial: true}) {
		s.since = len(s.printed)
	}
	s.printed += delta
	return nil
}

// Finish prints what of the final text the appends did not, and ends the
// line. Platforms that can replace a streamed message replace it with the
// final text; the terminal keeps what it printed and adds the rest: a note
// after it ("stopped"), or the end the appends had not reached yet, or,
// when the final text does not continue the printed one (a retry that
// wrote something else), the whole final text below it.
func (s *stream) Finish(_ context.Context, final chat.Out) (chat.MessageRef, error) {
	if rest, ok := s.unprinted(final.Text); ok {
		s.a.screen.print(piece{text: rest, cont: true, end: true, owner: s.m, md: true})
	} else {
		s.a.screen.print(piece{text: final.Text, fresh: true, end: true, owner: s.m, md: true})
	}
	ref := chat.MessageRef{Thread: s.t, ID: s.a.newID()}
	s.a.mu.Lock()
	s.m.printed = final.Text
	s.a.mu.Unlock()
	s.a.keep(ref.ID, s.m)
	return ref, nil
}

// unprinted is the part of final the terminal does not show yet; ok is
// false when final does not continue what was printed.
func (s *stream) unprinted(final string) (rest string, ok bool) {
	if rest, ok := strings.CutPrefix(final, s.printed); ok && s.printed != "" {
		return rest, true
	}
	// The final text of a turn that used tools is its last step's: it
	// begins inside the text printed since the last interruption (the
	// tool's status line), or that text is all of it.
	since := s.printed[s.since:]
	if !s.a.screen.continues(s.m) {
		since = "" // interrupted after the last append: none of it
	}
	for i := range len(since) {
		if rest, ok := strings.CutPrefix(final, since[i:]); ok {
			return rest, true
		}
	}
	return "", false
}
