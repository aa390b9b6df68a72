package outbound

import (
	"context"
	"errors"
	"fmt"
	"github.com/parleybot/parley/chat"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Native streaming (docs/architecture.md, The flow: a native stream when
// the adapter has one, falling back to send+edit;
// docs/platforms.md#slack-streaming, docs/platforms.md#telegram-streaming).
// When the adapter is a Streamer, a fresh reply streams its text into one
// native stream instead of editing a message:
//
//   - The stream starts lazily, when the first text is ready, so a turn that
//     fails before writing anything has posted nothing. Before that the
//     typing indicator shows, as on the send+edit path.
//   - Appends carry the text added since the last append, at the pace of
//     the shared bucket (like edits: cheaper on Slack, but still a call per
//     append), so however fast the model writes there is never a queue of
//     tiny appends.
//   - A stream is append-only, so progress status lines cannot be shown in
//     it: each new status is announced with the adapter's Typing instead
//     (Slack's assistant status), and its text is dropped; an adapter that
//     is a StatusShower (a terminal) is given the text, also before the
//     stream starts. A status is announced once the text written before
//     it has been appended.
//   - A stream cannot take text back either: after a Reset the stream holds
//     still until the new text extends what it shows (a retry that repeats
//     itself), and Finish's final Out replaces whatever it shows.
//   - Finish ends the stream with part 1 of the final answer; parts 2..n go
//     as continuation messages, as on the send+edit path.
//
// The fallback ladder: StartStream failing (other than a 429) sends this
// reply down the send+edit path and keeps its workspace there for
// NativeFallback; an Append failing (other than a 429) ends the stream with
// what it shows and the reply continues by edits of the same message.

// ReplyNativeStreaming is the status of a reply that started a native
// stream which may still be open: Refs[0], when present, is its message.
// A reply that finds a record (a re-run, a restart) never starts a stream,
// so the record is saved with this status before StartStream is called;
// a restart then closes the stream (StreamCloser) and continues the same
// message by edits.
const ReplyNativeStreaming = "native_streaming"

// nativeFinishTries bounds the attempts to end a stream that fail with
// something other than a 429 before the reply goes on by edits (or, when
// the stream's message is unknown, in a new message).
const nativeFinishTries = 3

// errStreamNoRef: a stream ended without any ref to record.
var errStreamNoRef = errors.New("native stream ended without a message id")

// nativeMode is where a reply stands with native streaming.
type nativeMode int

const (
	nativeOff   nativeMode = iota // send+edit: no Streamer, a resumed reply, or fallen back
	nativeReady                   // will start a stream with the first text
	nativeOpen                    // a stream is open
)

// nativeState is a reply's native stream. Like rec and shown it is owned
// by the pump until pumpDone is closed, then by Finish.
type nativeState struct {
	mode   nativeMode
	stream chat.Stream
	// appended is what the stream shows: a prefix of the reply's text (of
	// the text before a Reset, when the retry has not caught up).
	appended string
	broken   bool   // an Append failed: the stream is to be ended, then edits
	typed    string // the status last announced with Typing
}

// nativeMemo remembers the workspaces where StartStream failed, so that
// their replies go straight to send+edit for a while rather than each
// paying a failed call first. Entries expire; memory is bounded by the
// workspaces failing within NativeFallback.
type nativeMemo struct {
	mu    sync.Mutex
	until map[string]time.Time // Thread.Space → when to try streaming again
}

func (m *nativeMemo) allowed(space string, now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return !now.Before(m.until[space])
}

func (m *nativeMemo) failed(space string, now time.Time, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.until == nil {
		m.until = map[string]time.Time{}
	}
	for s, u := range m.until {
		if !now.Before(u) {
			delete(m.until, s)
		}
	}
	m.until[space] = now.Add(d)
}

// flushNative shows the newest text in the native stream, and reports
// whether the native path has it in hand; false means the reply now goes
// by send+edit and the caller goes on with that. It is long because it is
// one loop over the stream's states (not started, open, broken), whose
// cases continue or leave it.
func (w *ReplyWriter) flushNative(ctx context.Context) bool {
	n := &w.nat
	for ctx.Err() == nil {
		switch {
		case n.mode == nativeOff:
			return false
		case n.mode == nativeReady:
			if isBlank(w.Streamed()) {
				if w.d.shower != nil {
					w.announce(ctx) // typing shows meanwhile otherwise
				}
				return true // nothing is posted before the first text
			}
			if !w.d.streamer.StreamsIn(w.thread) || !w.d.natives.allowed(w.thread.Space, w.d.cfg.Now()) {
				n.mode = nativeOff
				return false
			}
			// A rate limit says "later", not "never": start later.
			ok, limited, err := w.paced(ctx, w.key, func() error { return w.startStream(ctx) })
			if !ok {
				return true
			}
			if err == nil || limited {
				continue
			}
			if errors.Is(err, chat.ErrStreamNotHere) {
				// This conversation cannot stream (a Slack DM's main view);
				// others in the workspace still can.
				n.mode = nativeOff
				return false
			}
			w.d.natives.failed(w.thread.Space, w.d.cfg.Now(), w.d.cfg.NativeFallback)
			w.log.Warn("native stream could not start; using send and edit in this workspace for a while",
				"space", w.thread.Space, "for", w.d.cfg.NativeFallback, "err", err)
			n.mode = nativeOff
			return false
		case n.broken:
			ok, limited, err := w.paced(ctx, w.key, func() error {
				text := trimEnd(n.appended)
				if text == "" {
					text = chat.Placeholder
				}
				return w.finishStream(ctx, text, "")
			})
			if !ok {
				return true // Finish ends the stream, with the final answer
			}
			if limited {
				continue
			}
			if err != nil {
				w.streamLost(ctx, err)
			}
			return false // the reply goes on by edits
		default:
			if w.nextDelta() == "" {
				// The status after the text: a status set while text waited
				// for its append follows that text.
				w.announce(ctx)
				return true
			}
			// Refused for a rate limit, nothing happened: the same text, and
			// whatever arrives meanwhile, goes in the next append.
			ok, limited, err := w.paced(ctx, w.key, func() error {
				delta := w.nextDelta() // the newest, after the wait
				if delta == "" {
					return nil
				}
				cctx, cancel := w.callCtx(ctx)
				defer cancel()
				if err := n.stream.Append(cctx, delta); err != nil {
					return err
				}
				n.appended += delta
				return nil
			})
			if !ok {
				return true
			}
			if err == nil || limited {
				continue
			}
			w.log.Warn("native stream append failed; ending the stream and going on by edits", "err", err)
			n.broken = true
		}
	}
	return true
}

// startStream opens the reply's native stream. The record says so first,
// so that no later Begin for this inbox key starts another.
func (w *ReplyWriter) startStream(ctx context.Context) error {
	w.rec.Status = ReplyNativeStreaming
	w.save(ctx)
	cctx, cancel := w.callCtx(ctx)
	s, err := w.d.streamer.StartStream(cctx, w.thread, w.user)
	cancel()
	if err == nil && s == nil {
		err = errors.New("the adapter returned no stream")
	}
	if err != nil {
		w.rec.Status = ReplyStreaming // nothing open (as far as we know)
		return fmt.Errorf("start stream: %w", err)
	}
	w.nat.mode, w.nat.stream = nativeOpen, s
	w.posted.Store(true)
	if rs, ok := s.(chat.RefStream); ok {
		if ref := rs.Ref(); ref.ID != "" {
			w.rec.Refs = append(w.rec.Refs, ref.ID)
			w.shown = append(w.shown, unknownText)
			w.save(ctx)
		}
	}
	return nil
}

// nextDelta returns the text to append now: what the stream should show
// minus what it shows, or "" when nothing is to be added, or when the
// text no longer extends what it shows (after a Reset: the stream cannot
// take text back, so it holds still and Finish replaces it).
func (w *ReplyWriter) nextDelta() string {
	target := w.d.streamTarget(w.Streamed())
	if !strings.HasPrefix(target, w.nat.appended) {
		return ""
	}
	return target[len(w.nat.appended):]
}

// streamTarget is what a native stream should show of text: all of it,
// without trailing whitespace (invisible until more text follows), but no
// further than part 1 of the answer, which is what Finish will leave in
// the message; the rest arrives as continuation messages.
func (d *Delivery) streamTarget(text string) string {
	text = trimEnd(text)
	if d.splitAt <= 0 || d.measure(text) <= d.splitAt {
		return text
	}
	// The splitter may close a code fence at the end of part 1: only the
	// prefix the part shares with the text can be appended.
	p := d.parts(text)[0]
	i := 0
	for i < len(p) && i < len(text) && p[i] == text[i] {
		i++
	}
	for i > 0 && i < len(text) && !utf8.RuneStart(text[i]) {
		i--
	}
	return trimEnd(text[:i])
}

// announce shows a new status with the typing indicator, the one place a
// native stream can show it, or with the adapter's ShowStatus where it has
// one. Errors are logged only: it is a courtesy.
func (w *ReplyWriter) announce(ctx context.Context) {
	w.mu.Lock()
	status := w.status
	w.mu.Unlock()
	if status == w.nat.typed {
		return
	}
	w.nat.typed = status
	if status == "" {
		return
	}
	cctx, cancel := w.callCtx(ctx)
	defer cancel()
	if w.d.shower != nil {
		if err := w.d.shower.ShowStatus(cctx, w.thread, status); err != nil {
			w.log.Info("showing the status failed", "err", err)
		}
		return
	}
	if err := w.d.cfg.Adapter.Typing(cctx, w.thread); err != nil {
		w.log.Info("typing indicator failed", "err", err)
	}
}

// finishStream ends the stream showing text and records its message: the
// reply goes on by send+edit. A successful Finish is taken to leave text
// in the message, as Stream.Finish promises ("final is the complete
// answer").
func (w *ReplyWriter) finishStream(ctx context.Context, text, key string) error {
	cctx, cancel := w.callCtx(ctx)
	ref, err := w.nat.stream.Finish(cctx, chat.Out{Text: text, Key: key})
	cancel()
	if err != nil {
		return fmt.Errorf("finish stream: %w", err)
	}
	w.unsure = false
	w.nat = nativeState{mode: nativeOff}
	w.rec.Status = ReplyStreaming // closed: nothing for a restart to close
	switch {
	case len(w.rec.Refs) > 0:
		if ref.ID != "" && ref.ID != w.rec.Refs[0] {
			w.log.Warn("the stream finished as another message than it started", "started", w.rec.Refs[0], "finished", ref.ID)
		}
		w.shown[0] = text
	case ref.ID == "":
		return errStreamNoRef
	default:
		w.rec.Refs = append(w.rec.Refs, ref.ID)
		w.shown = append(w.shown, text)
	}
	w.save(ctx)
	return nil
}

// streamLost gives up on ending the stream (its Finish keeps failing; it
// may have expired). Its message, when known, is edited from now on,
// after a StreamCloser closes it in case it is still open; when unknown,
// the answer goes on in a new message and the stream's partial text stays
// behind.
func (w *ReplyWriter) streamLost(ctx context.Context, err error) {
	w.nat = nativeState{mode: nativeOff}
	if len(w.rec.Refs) > 0 {
		w.shown[0] = unknownText
		w.orphan = w.d.closer != nil
		if !w.orphan {
			w.rec.Status = ReplyStreaming
		}
		w.log.Warn("could not end the native stream; going on by edits of its message", "ref", w.rec.Refs[0], "err", err)
		return
	}
	w.rec.Status = ReplyStreaming
	w.log.Warn("could not end the native stream and its message is unknown; the answer goes on in a new message", "err", err)
}

// finishNative ends the open stream with part 1 of the final answer,
// retrying through 429s and, a few times, other errors. done reports that
// the whole answer is shown (a one-part answer from a stream that gave no
// ref to record); otherwise deliverParts goes on with parts 2..n, or with
// all of them when the stream had to be given up.
func (w *ReplyWriter) finishNative(ctx context.Context, parts []string) (done bool, err error) {
	var last error
	for failures := 0; ; {
		if err := w.d.cfg.Pacer.WaitFirst(ctx, w.key); err != nil {
			return false, w.gaveUp(ctx, "finish stream", last)
		}
		key := ""
		if len(w.rec.Refs) == 0 {
			// The stream has no message of its own (a Telegram draft):
			// ending it posts the answer, a create whose outcome a crash
			// can leave unknown. Recorded first, as for any post
			// (delivery_post.go).
			key = partKey(w.rec.InboxKey, 0)
			if w.rec.Status != ReplyPosting {
				w.rec.Status = ReplyPosting
				w.save(ctx)
			}
			w.unsure = true
		}
		err := w.finishStream(ctx, parts[0], key)
		switch {
		case err == nil:
			if len(parts) > 1 {
				w.rec.Text = parts[0]
				w.save(ctx)
			}
			return false, nil
		case errors.Is(err, errStreamNoRef):
			w.log.Error("the native stream ended without a message id; it cannot be recorded", "parts", len(parts))
			if len(parts) == 1 {
				return true, nil
			}
			return false, fmt.Errorf("finish stream: %w: parts 2..%d cannot follow it", err, len(parts))
		}
		last = err
		if wait, ok := chat.RetryAfter(err); ok {
			w.d.cfg.Pacer.Penalize(w.key, wait)
			continue
		}
		if failures++; failures >= nativeFinishTries {
			w.streamLost(ctx, err)
			return false, nil
		}
		w.log.Warn("ending the native stream failed; retrying", "attempt", failures, "err", err)
		if w.d.cfg.Sleep(ctx, backoff(failures-1)) != nil {
			return false, w.gaveUp(ctx, "finish stream", last)
		}
	}
}

// closeOrphan closes message 0's stream, which may still be open (an
// earlier process died while it streamed, or its Finish failed), before
// the message is edited. Only a 429 is returned, to be waited out and
// retried; after any other error the edits go ahead, and are retried
// until the platform has ended the stream.
func (w *ReplyWriter) closeOrphan(ctx context.Context) error {
	cctx, cancel := w.callCtx(ctx)
	err := w.d.closer.CloseStream(cctx, chat.MessageRef{Thread: w.thread, ID: w.rec.Refs[0]})
	cancel()
	if _, limited := chat.RetryAfter(err); limited {
		return fmt.Errorf("close stream: %w", err)
	}
	if err != nil {
		w.log.Info("closing an interrupted native stream failed; it may have ended already", "ref", w.rec.Refs[0], "err", err)
	}
	w.orphan = false
	w.rec.Status = ReplyStreaming
	w.save(ctx)
	return nil
}
