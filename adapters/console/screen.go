package console

import (
	"io"
	"strings"
	"sync"
)

// screen is the terminal's output. The Run loop and the core's goroutines
// (a streaming answer, an approval, a command's answer) all print through
// it, one piece at a time. A piece that must start a line of its own does;
// the line it leaves open is ended only by the next such piece, so a later
// piece of the same message can continue it (a stream's next delta, an
// edit that only adds to the text).
//
// While a question waits for its answer ("Approve? [y/N] "), everything
// else is held back and shown after the answer, so nothing is printed into
// the line being typed.
type screen struct {
	w    io.Writer
	wake func() // called when a question is shown or settled

	mu      sync.Mutex
	midLine bool      // the cursor is not at the start of a line
	tail    *message  // whose text the last piece shown or held ends with; nil: no message's
	asking  *question // the question waiting for its answer
	held    []piece   // pieces that arrived while asking, in order
}

// piece is one write to the terminal.
type piece struct {
	text  string
	fresh bool      // start on a line of its own
	cont  bool      // continue owner's text: fresh unless the terminal's text ends with it
	end   bool      // end the line afterwards
	owner *message  // the message text belongs to; nil for the console's own lines
	ask   *question // after text, ask q (unless it was settled meanwhile)
}

func newScreen(w io.Writer, wake func()) *screen {
	return &screen{w: w, wake: wake}
}

// print shows p, or holds it while a question waits, and reports whether
// it starts a line of its own.
func (s *screen) print(p piece) (fresh bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enqueue(p)
}

// continues reports whether the terminal's text, shown or held, ends with
// m's.
func (s *screen) continues(m *message) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tail == m
}

// extend prints p, a continuation of p.owner's text, if the terminal's
// text still ends with it, and reports whether it did.
func (s *screen) extend(p piece) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.owner == nil || s.tail != p.owner {
		return false
	}
	s.enqueue(p)
	return true
}

func (s *screen) enqueue(p piece) (fresh bool) {
	if p.cont {
		p.fresh = p.owner == nil || s.tail != p.owner
	}
	s.tail = p.owner
	if s.asking != nil || len(s.held) > 0 {
		s.held = append(s.held, p)
	} else {
		s.show(p)
	}
	return p.fresh
}

// show writes p; s.mu is held.
func (s *screen) show(p piece) {
	if p.fresh {
		s.endLine()
		p.text = strings.TrimLeft(p.text, "\n")
	}
	s.write(p.text)
	if p.end {
		s.endLine()
	}
	if p.ask != nil && !p.ask.settled {
		s.endLine()
		s.write(p.ask.prompt())
		s.asking = p.ask
		s.wake()
	}
}

func (s *screen) write(text string) {
	if text == "" {
		return
	}
	io.WriteString(s.w, text)
	s.midLine = !strings.HasSuffix(text, "\n")
}

func (s *screen) endLine() {
	if s.midLine {
		io.WriteString(s.w, "\n")
		s.midLine = false
	}
}

// question returns the question waiting for its answer, if any.
func (s *screen) question() *question {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asking
}

// answered ends q's prompt with echo (the answer as typed, when the
// terminal did not show it) and shows what was held meanwhile, up to the
// next question. It reports whether q was the question waiting: a
// question settled otherwise (expired) takes no answer.
func (s *screen) answered(q *question, echo string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.asking != q {
		return false
	}
	s.write(echo)
	s.endLine()
	s.settle(q)
	return true
}

// drop settles q without an answer: its message was edited (decided or
// expired elsewhere), so it is no longer asked, or no longer waits.
func (s *screen) drop(q *question) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.asking == q {
		s.endLine()
	}
	s.settle(q)
}

// settle marks q answered and shows the held pieces, up to the next
// question; s.mu is held.
func (s *screen) settle(q *question) {
	q.settled = true
	if s.asking != q {
		return // not asked yet: show skips it
	}
	s.asking = nil
	for len(s.held) > 0 && s.asking == nil {
		p := s.held[0]
		s.held = s.held[1:]
		s.show(p)
	}
	s.wake()
}

// typed tells the screen the person pressed Enter: a terminal echoes the
// line, so the cursor is at the start of the next one.
func (s *screen) typed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.midLine = false
	s.tail = nil
}

// close ends the last line and shows what is still held: the chat is over.
func (s *screen) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.held {
		if p.ask != nil {
			p.ask.settled = true // no one is left to answer it
		}
	}
	if s.asking != nil {
		s.endLine()
		s.settle(s.asking)
	}
	s.endLine()
}
