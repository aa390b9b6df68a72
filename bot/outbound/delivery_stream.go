package outbound

import (
	"context"
	"errors"
	"fmt"
	"github.com/parleybot/parley/chat"
	"slices"
	"sync"
)

// pump is the reply's one goroutine while it streams. It waits until there
// is something new, then shows the newest state at the pace the shared
// bucket allows. Deltas arriving meanwhile only replace that state, so the
// platform never sees a queue of stale frames, however fast the model
// writes and however long a 429 makes us wait.
func (w *ReplyWriter) pump(ctx context.Context) {
	var typing sync.WaitGroup
	typing.Go(func() { w.keepTyping(ctx) })
	defer func() {
		typing.Wait()
		close(w.pumpDone)
	}()
	var f frameCache
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		}
		w.flush(ctx, &f)
	}
}

// flush shows the newest state until what the message shows is current.
// Streaming frames are best effort: a 429 penalizes the bucket and the
// newest text is tried again when it allows; any other error is logged and
// left to the next delta or to Finish.
func (w *ReplyWriter) flush(ctx context.Context, f *frameCache) {
	if len(w.rec.Refs) == 0 && w.unsure {
		// A part posted before a crash may exist: only the final, which
		// looks for it first, may post (delivery_post.go).
		return
	}
	if !w.holdFirst(ctx) {
		return
	}
	if w.nat.mode != nativeOff && w.flushNative(ctx) {
		return
	}
	for ctx.Err() == nil {
		frame := w.frame(f)
		if frame == "" || (len(w.rec.Refs) > 0 && frame == w.shown[0]) {
			return // nothing to show, or no-op: it is shown already
		}
		key := w.key
		if len(w.rec.Refs) == 0 {
			key = w.postKey
		}
		ok, limited, err := w.paced(ctx, key, func() error {
			switch {
			case len(w.rec.Refs) == 0:
				return w.post(ctx, w.placeholder())
			case w.orphan:
				return w.closeOrphan(ctx)
			}
			if frame := w.frame(f); frame != w.shown[0] { // the newest, after the wait
				return w.streamEdit(ctx, frame)
			}
			return nil
		})
		if !ok {
			return
		}
		if err == nil || limited {
			continue
		}
		w.log.Warn("streaming update failed; the next one or the final answer will catch up", "err", err)
		return
	}
}

// frameCache keeps the pump's last rendering, so that an unchanged state
// is neither copied nor rendered again.
type frameCache struct {
	version uint64
	frame   string
	valid   bool
}

// frame renders the newest state, as the message should show it now.
func (w *ReplyWriter) frame(f *frameCache) string {
	w.mu.Lock()
	if f.valid && f.version == w.version {
		w.mu.Unlock()
		return f.frame
	}
	v, text, status := w.version, string(w.text), w.status
	w.mu.Unlock()
	f.version, f.frame, f.valid = v, w.d.render(text, status), true
	return f.frame
}

// placeholder is what a new message says when it is posted: the status
// line, or an ellipsis. Answer text only ever reaches a message by an edit
// of a recorded ref, so a send whose outcome is unknown (a timeout after
// the platform acted) can leave a stray placeholder, never a second copy
// of the answer.
func (w *ReplyWriter) placeholder() string {
	w.mu.Lock()
	status := w.status
	w.mu.Unlock()
	if status == "" {
		return chat.Placeholder
	}
	return w.d.compose("", false, status)
}

// post sends a new message showing text and records its ref in the outbox
// before anything else happens, so that a retry or a restart edits it
// instead of posting again.
func (w *ReplyWriter) post(ctx context.Context, text string) error {
	ref, err := w.send(ctx, chat.Out{Text: text, ReplyTo: w.replyTo})
	if ref.ID == "" {
		if err == nil {
			err = errors.New("the adapter returned no message id")
		}
		return fmt.Errorf("send: %w", err)
	}
	if err != nil {
		// The adapter knows the message exists: keep it, do not send it
		// again.
		w.log.Warn("send reported an error but the message exists; keeping it", "ref", ref.ID, "err", err)
	}
	w.rec.Refs = append(w.rec.Refs, ref.ID)
	w.shown = append(w.shown, text)
	w.posted.Store(true)
	w.save(ctx)
	return nil
}

// send makes one Send of out, repeated as plain text when the platform
// refused its formatting.
func (w *ReplyWriter) send(ctx context.Context, out chat.Out) (chat.MessageRef, error) {
	cctx, cancel := w.callCtx(ctx)
	ref, err := w.d.cfg.Adapter.Send(cctx, w.thread, out)
	cancel()
	if errors.Is(err, chat.ErrFormatRejected) {
		out.Plain = true
		cctx, cancel := w.callCtx(ctx)
		ref, err = w.d.cfg.Adapter.Send(cctx, w.thread, out)
		cancel()
	}
	return ref, err
}

// streamEdit shows a streaming frame in the first message.
func (w *ReplyWriter) streamEdit(ctx context.Context, frame string) error {
	if w.rec.Text != "" {
		// The record says which final parts the messages show (an
		// earlier, interrupted delivery); this edit makes that untrue.
		w.rec.Text = ""
		w.save(ctx)
	}
	return w.edit(ctx, 0, frame)
}

// edit shows text in message i.
func (w *ReplyWriter) edit(ctx context.Context, i int, text string) error {
	ref := chat.MessageRef{Thread: w.thread, ID: w.rec.Refs[i]}
	cctx, cancel := w.callCtx(ctx)
	err := w.d.cfg.Adapter.Edit(cctx, ref, chat.Out{Text: text})
	cancel()
	if errors.Is(err, chat.ErrFormatRejected) {
		cctx, cancel := w.callCtx(ctx)
		err = w.d.cfg.Adapter.Edit(cctx, ref, chat.Out{Text: text, Plain: true})
		cancel()
	}
	if err == nil {
		w.shown[i] = text
		return nil
	}
	if _, limited := chat.RetryAfter(err); !limited {
		// A 429 is refused before anything happens; after any other
		// error the edit may or may not have landed.
		w.shown[i] = unknownText
	}
	return fmt.Errorf("edit: %w", err)
}

// keepTyping shows the typing indicator at once, and again every
// TypingEvery until the reply has a message or the pump stops. Errors are
// logged only: the indicator is a courtesy.
func (w *ReplyWriter) keepTyping(ctx context.Context) {
	for {
		cctx, cancel := w.callCtx(ctx)
		if err := w.d.cfg.Adapter.Typing(cctx, w.thread); err != nil {
			w.log.Info("typing indicator failed", "err", err)
		}
		cancel()
		if w.d.cfg.TypingEvery < 0 || w.d.cfg.Sleep(ctx, w.d.cfg.TypingEvery) != nil || w.posted.Load() {
			return
		}
	}
}

// callCtx bounds one platform or outbox call. It is not cancelled with
// ctx: abandoning a send half way is how a message comes to exist without
// the reply knowing its ref.
func (w *ReplyWriter) callCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), w.d.cfg.CallTimeout)
}

// save writes the reply's record. A failure is logged: the reply goes on
// with what it knows in memory, and only a crash before the next save
// could repeat a message.
func (w *ReplyWriter) save(ctx context.Context) {
	rec := w.rec
	rec.Refs = slices.Clone(rec.Refs)
	sctx, cancel := w.callCtx(ctx)
	defer cancel()
	if err := w.d.cfg.Outbox.SaveReply(sctx, rec); err != nil {
		w.log.Error("save reply record", "refs", rec.Refs, "status", rec.Status, "err", err)
	}
}

// paced is the step every streaming frame takes: wait for key's frame
// token (Pacer.WaitFrame), then call. A rate limit penalizes key's bucket,
// so that every reply drawing on it waits, and says limited: the frame is
// tried again later. ok is false when the wait ended with ctx; err is
// call's failure otherwise.
func (w *ReplyWriter) paced(ctx context.Context, key PaceKey, call func() error) (ok, limited bool, err error) {
	if w.d.cfg.Pacer.WaitFrame(ctx, key) != nil {
		return false, false, nil
	}
	err = call()
	if wait, rl := chat.RetryAfter(err); rl {
		w.d.cfg.Pacer.Penalize(key, wait)
		return true, true, nil
	}
	return true, false, err
}
