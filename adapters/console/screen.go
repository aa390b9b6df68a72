package console

import (
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/parleybot/parley/bot/format"
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
//
// On a terminal (md set) the bot's messages are Markdown, shown rendered,
// and what is shown is never taken back (no cursor moves): a stream's text
// shows block by block, each once it is whole (a blank line after it,
// outside fenced code), and its last block when the stream finishes, or
// when something else is printed after it (a status line, a question).
// Each block is rendered in the document it belongs to, so lists keep
// their numbers and code its indentation. Text printed as written on a
// terminal loses its control characters (format.TerminalSafe): only the
// renderer's own escape sequences reach it.
type screen struct {
	w    io.Writer
	wake func()    // called when a question is shown or settled
	md   *markdown // renders Markdown; nil: text is printed as written

	mu      sync.Mutex
	midLine bool      // the cursor is not at the start of a line
	tail    *message  // whose text the last piece shown or held ends with; nil: no message's
	asking  *question // the question waiting for its answer
	held    []piece   // pieces that arrived while asking, in order
	doc     *doc      // the rendered message the terminal's text ends with (md only)
}

// piece is one write to the terminal.
type piece struct {
	text  string
	fresh bool      // start on a line of its own
	cont  bool      // continue owner's text: fresh unless the terminal's text ends with it
	end   bool      // end the line afterwards
	owner *message  // the message text belongs to; nil for the console's own lines
	ask   *question // after text, ask q (unless it was settled meanwhile)
	// md: text is owner's Markdown, rendered on a terminal; partial: more
	// of it follows (a stream's), so its last block waits for the rest.
	md, partial bool
}

func newScreen(w io.Writer, wake func(), md *markdown) *screen {
	return &screen{w: w, wake: wake, md: md}
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
// text still ends with it, and reports whether it did. Rendered, the text
// continues in place only when the lines shown stay as they are (the
// addition starts a block of its own), and when nothing is held.
func (s *screen) extend(p piece) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.owner == nil || s.tail != p.owner {
		return false
	}
	if s.md == nil || !p.md {
		s.enqueue(p)
		return true
	}
	d := s.doc
	if s.asking != nil || len(s.held) > 0 || d == nil || d.owner != p.owner || d.done != len(d.src) {
		return false
	}
	src := d.src + p.text
	if d.plain {
		d.src = src
		s.writeRaw(d)
		return true
	}
	lines, ok := s.md.render(src[d.base:])
	if !ok || len(lines) < len(d.shown) || !slices.Equal(lines[:len(d.shown)], d.shown) {
		return false
	}
	s.writeLines(d, lines[len(d.shown):])
	d.src, d.shown, d.done = src, lines, len(src)
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
	switch {
	case s.md != nil && p.md:
		s.showMarkdown(p)
	default:
		s.closeDoc()
		if p.fresh {
			s.endLine()
			p.text = strings.TrimLeft(p.text, "\n")
		}
		s.write(s.safe(p.text))
	}
	if p.end {
		s.endLine()
	}
	if p.ask != nil && !p.ask.settled {
		s.endLine()
		s.write(s.safe(p.ask.prompt()))
		s.asking = p.ask
		s.wake()
	}
}

// showMarkdown adds p's text to its message's document, and shows what
// of it can be shown; s.mu is held.
func (s *screen) showMarkdown(p piece) {
	d := s.doc
	if p.fresh || d == nil || d.owner != p.owner {
		s.closeDoc()
		s.endLine()
		d = &doc{owner: p.owner}
		s.doc = d
		p.text = strings.TrimLeft(p.text, "\n")
	}
	d.src += p.text
	s.render(d, !p.partial)
}

// closeDoc shows the rest of the document the terminal's text ends with,
// since something else is printed after it; s.mu is held.
func (s *screen) closeDoc() {
	if d := s.doc; d != nil {
		s.render(d, true)
		s.doc = nil
	}
}

// doc is a message's Markdown as the terminal shows it, since it started
// on a line of its own. It is rendered in parts: a long one is cut at a
// top-level paragraph once a part has partMin bytes, each part a document
// of its own, with a blank line between.
type doc struct {
	owner *message
	src   string
	base  int      // where in src the part being shown starts
	done  int      // how much of src is shown
	shown []string // the part's lines shown
	parts bool     // an earlier part was shown
	plain bool     // nothing of it showed rendered: the rest prints as written
	raw   bool     // some of the rest is printed as written: more continues it
}

// render shows what of d is not shown yet: all of it when whole, else up
// to its last whole block; s.mu is held. What shows nothing rendered (a
// link reference definition) waits for more, and when d is whole prints
// as written.
func (s *screen) render(d *doc, whole bool) {
	if !d.plain {
		cs := cuts(d.src, d.base)
		upto := len(d.src)
		if !whole {
			upto = d.done
			if len(cs) > 0 {
				upto = max(upto, cs[len(cs)-1].at)
			}
		}
		if upto <= d.done {
			return
		}
		if long := d.done - d.base; !whole && long >= slowPart && upto-d.done < long/4 {
			return // a long part waits for a quarter more: rendered O(log n) times, not O(n)
		}
		lines, ok := s.md.render(d.src[d.base:upto])
		if ok {
			s.writeLines(d, unshown(d.shown, lines))
			d.shown, d.done = lines, upto
			if upto-d.base >= partMin && slices.Contains(cs, cut{at: upto, fresh: true}) {
				d.newPart(upto)
			}
			return
		}
		if !whole {
			return
		}
		d.plain = true
	}
	s.writeRaw(d)
}

// unshown returns the lines of a part's rendering that come after those
// shown of an earlier one. Rendering more of a part adds lines after the
// ones shown, but for blank lines: a list shown while tight gains blank
// lines between its items once a later item has one before it (the list
// became loose). So the lines shown are matched with the new ones
// skipping blank lines, and none is shown twice.
func unshown(shown, lines []string) []string {
	i := 0
	for _, l := range shown {
		if !visible(l) {
			continue
		}
		for i < len(lines) && !visible(lines[i]) {
			i++
		}
		i++
	}
	return lines[min(i, len(lines)):]
}

// newPart starts d's next part at at.
func (d *doc) newPart(at int) {
	d.base, d.shown, d.parts = at, nil, true
}

// writeLines shows rendered lines of d, each on a line of its own.
func (s *screen) writeLines(d *doc, lines []string) {
	if len(lines) == 0 {
		return
	}
	s.endLine()
	if d.parts && len(d.shown) == 0 {
		s.write("\n") // the blank line between parts
	}
	s.write(strings.Join(lines, "\n"))
}

// writeRaw prints the rest of d as written: after rendered text, as a
// block of its own.
func (s *screen) writeRaw(d *doc) {
	rest := d.src[d.done:]
	d.done = len(d.src)
	if !d.raw && (len(d.shown) > 0 || d.parts) {
		rest = strings.TrimLeft(rest, "\n")
		if rest == "" {
			return
		}
		s.endLine()
		s.write("\n")
	}
	if rest != "" {
		d.raw = true
		s.write(s.safe(rest))
	}
}

func (s *screen) write(text string) {
	if text == "" {
		return
	}
	io.WriteString(s.w, text)
	s.midLine = !strings.HasSuffix(text, "\n")
}

// safe is text as the terminal may show it: on a terminal (md set)
// without the control characters that would move its cursor, retitle it
// or write its clipboard; elsewhere as written.
func (s *screen) safe(text string) string {
	if s.md == nil {
		return text
	}
	return format.TerminalSafe(text)
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
	s.write(s.safe(echo))
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
	s.closeDoc()
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
	s.closeDoc()
	s.endLine()
}
