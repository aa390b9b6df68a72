package outbound

import (
	"context"
	"errors"
	"github.com/parleybot/parley/chat"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// ReplyWriter is one reply being shown: it implements Reply. Delta, Reset
// and Progress only record the newest state and return at once; a single
// goroutine per reply pushes that state to the platform at the pace the
// shared bucket allows. Finish delivers the final answer, retrying until it
// is shown or the deadline passes. Safe for concurrent use.
type ReplyWriter struct {
	d       *Delivery
	key     PaceKey // edits
	postKey PaceKey // new messages
	thread  chat.Thread
	user    chat.User // the asker: a native stream's recipient
	replyTo string
	log     *slog.Logger

	mu       sync.Mutex
	text     []byte // streamed since the last Reset
	status   string // the transient status line, "" for none
	version  uint64 // counts changes of text and status
	finished bool

	wake     chan struct{} // "there is something new"; capacity 1, so deltas coalesce
	stopPump context.CancelFunc
	pumpDone chan struct{}
	posted   atomic.Bool // the reply has a message: typing is no longer needed

	// rec and shown are owned by the pump until pumpDone is closed, then
	// by Finish.
	rec OutboxRecord
	// shown[i] is what message rec.Refs[i] shows, or unknownText when
	// that is not known (after a restart, or an edit whose outcome is
	// unknown).
	shown     []string
	delivered bool // the record was delivered before Begin: nothing to do
	// nat is the native stream (delivery_native.go); orphan says message 0
	// may be a stream still open, to be closed before it is edited. Owned
	// like rec.
	nat    nativeState
	orphan bool
	// unsure says message Refs[len(Refs)] may exist though its ref is
	// not known: a post of it was recorded (ReplyPosting) and its outcome
	// is unknown, after a crash or an error. Owned like rec.
	unsure bool
	// due is when the first frame may show (zero: not yet decided);
	// framed, that the reply is past that point. Owned by the pump.
	due    time.Time
	framed bool

	finishOnce sync.Once
	finishErr  error
}

var _ Reply = (*ReplyWriter)(nil)

// errReplyFinished is returned by Delta, Reset and Progress after Finish.
var errReplyFinished = errors.New("delivery: reply already finished")

// unknownText stands for a message whose text is not known; no rendered
// text is ever empty, so it never matches one.
const unknownText = ""

func (d *Delivery) newWriter(ctx context.Context, rec OutboxRecord, resumed, orphan bool, t chat.Thread, u chat.User, replyTo string) *ReplyWriter {
	w := &ReplyWriter{
		d:        d,
		key:      d.cfg.Pacer.Key(t),
		postKey:  d.cfg.Pacer.PostKey(t),
		thread:   t,
		user:     u,
		replyTo:  replyTo,
		orphan:   orphan,
		log:      d.cfg.Logger.With("inbox_key", rec.InboxKey),
		wake:     make(chan struct{}, 1),
		pumpDone: make(chan struct{}),
		rec:      rec,
	}
	w.rec.Refs = slices.Clone(rec.Refs)
	w.shown = make([]string, len(w.rec.Refs)) // all unknownText
	w.posted.Store(len(w.rec.Refs) > 0)
	w.unsure = resumed && rec.Status == ReplyPosting
	if resumed && rec.Status == ReplyDelivered {
		// A crash after delivery, before the inbox was marked done: the
		// answer is shown; a second delivery would only risk a copy.
		w.delivered, w.finished = true, true
		w.stopPump = func() {}
		close(w.pumpDone)
		return w
	}
	if !resumed && d.streamer != nil {
		w.nat.mode = nativeReady
	}
	pctx, cancel := context.WithCancel(ctx)
	w.stopPump = cancel
	go w.pump(pctx)
	return w
}

// Delta appends streamed text. It never blocks on the platform.
func (w *ReplyWriter) Delta(_ context.Context, text string) error {
	w.mu.Lock()
	if w.finished {
		w.mu.Unlock()
		return w.afterFinish()
	}
	w.text = append(w.text, text...)
	// New text means whatever the status line announced (a tool run, a
	// retry) is over.
	w.status = ""
	w.version++
	w.mu.Unlock()
	w.poke()
	return nil
}

// Reset discards the text streamed so far: the model call is retried and
// streams its answer again.
func (w *ReplyWriter) Reset(context.Context) error {
	w.mu.Lock()
	if w.finished {
		w.mu.Unlock()
		return w.afterFinish()
	}
	w.text = w.text[:0]
	w.version++
	w.mu.Unlock()
	w.poke()
	return nil
}

// Progress shows status as a transient line under the text ("running
// web_fetch…"); the next Delta, or the final answer, removes it.
func (w *ReplyWriter) Progress(_ context.Context, status string) error {
	w.mu.Lock()
	if w.finished {
		w.mu.Unlock()
		return w.afterFinish()
	}
	w.status = statusLine(status)
	w.version++
	w.mu.Unlock()
	w.poke()
	return nil
}

// Finish delivers final as the complete answer and returns when it is
// shown, or when FinalDeadline has passed (the record is then marked
// failed and the error returned). It works even when ctx has ended, as
// after /stop or at shutdown: the core calls it with whatever text exists.
// An empty final shows the streamed text, or "(no answer)". Calling it
// again returns the first call's result.
func (w *ReplyWriter) Finish(ctx context.Context, final string) error {
	w.finishOnce.Do(func() {
		w.mu.Lock()
		w.finished = true
		streamed := string(w.text)
		w.mu.Unlock()
		// Stop the pump between calls (an in-flight call completes, so no
		// message is left half-known) and take over its state.
		w.stopPump()
		<-w.pumpDone
		w.finishErr = w.deliver(context.WithoutCancel(ctx), final, streamed)
	})
	return w.finishErr
}

// Streamed returns the text streamed since the last Reset.
func (w *ReplyWriter) Streamed() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.text)
}

func (w *ReplyWriter) afterFinish() error {
	if w.delivered {
		return nil // a re-run of a delivered turn: nothing will be shown
	}
	return errReplyFinished
}

// poke tells the pump there is something new, without blocking: a pending
// poke already covers it.
func (w *ReplyWriter) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}
