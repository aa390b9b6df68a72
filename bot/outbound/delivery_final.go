package outbound

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/parleybot/parley/chat"
	bo "github.com/parleybot/parley/internal/backoff" // this package's backoff is the function below
)

// errFinalDeadline is the cause of a final delivery that ran out of time.
var errFinalDeadline = errors.New("final delivery deadline passed")

// deliver shows the final answer: part 1 in the first message, parts 2..n
// in continuation messages, each call retried through 429s (honouring
// retry-after) and other errors (backoff with jitter) until FinalDeadline.
// Progress is saved after every step, so a retry or a restart resumes at
// the right part and never posts one twice. A native stream still open
// ends with part 1 (finishNative) and the rest follows the same way.
func (w *ReplyWriter) deliver(ctx context.Context, final, streamed string) error {
	if w.delivered {
		w.log.Info("reply was delivered before; not delivering it again")
		return nil
	}
	text := final
	if isBlank(text) {
		text = streamed
	}
	if isBlank(text) {
		text = noAnswerText
	}
	parts := w.d.parts(text)
	w.recallShown(parts)
	w.rec.Attempts++

	dctx, cancel := w.withDeadline(ctx)
	defer cancel()
	if w.nat.mode == nativeOpen {
		done, err := w.finishNative(dctx, parts)
		if err != nil {
			return w.fail(ctx, err)
		}
		if done {
			w.rec.Status, w.rec.Text = ReplyDelivered, joinParts(parts)
			w.save(ctx)
			return nil
		}
	}
	if err := w.deliverParts(dctx, parts); err != nil {
		return w.fail(ctx, err)
	}
	if text := joinParts(parts); w.rec.Status != ReplyDelivered || w.rec.Text != text {
		w.rec.Status, w.rec.Text = ReplyDelivered, text
		w.save(ctx)
	}
	return nil
}

func (w *ReplyWriter) deliverParts(ctx context.Context, parts []string) error {
	if w.orphan {
		if err := w.finalCall(ctx, w.key, "close interrupted stream", w.closeOrphan); err != nil {
			return err
		}
	}
	for i, part := range parts {
		if i == len(w.rec.Refs) {
			// A new message shows its final text from the start: no
			// placeholder to edit, one call (delivery_post.go).
			if err := w.finalCall(ctx, w.postKey, fmt.Sprintf("post part %d/%d", i+1, len(parts)), func(ctx context.Context) error {
				last := i == len(parts)-1 && !w.orphan
				return w.postPart(ctx, i, part, joinParts(parts[:i+1]), last)
			}); err != nil {
				return err
			}
		}
		if w.shown[i] != part {
			if err := w.finalCall(ctx, w.key, fmt.Sprintf("edit part %d/%d", i+1, len(parts)), func(ctx context.Context) error {
				return w.edit(ctx, i, part)
			}); err != nil {
				return err
			}
		}
		// The last one is saved with the status.
		if shows := joinParts(parts[:i+1]); i < len(parts)-1 && w.rec.Text != shows {
			w.rec.Text = shows
			w.save(ctx)
		}
	}
	if w.unsure {
		// A re-run's answer is shorter than the post a crash cut off:
		// that message, if the platform can find it, is retired too.
		if _, err := w.findSent(ctx, partKey(w.rec.InboxKey, len(w.rec.Refs))); err != nil {
			w.log.Warn("could not look for a message an earlier post may have left", "err", err)
		}
	}
	// Messages an earlier, longer version of the answer needed (a re-run
	// after a crash): there is no delete in Adapter, so they point up.
	for i := len(parts); i < len(w.rec.Refs); i++ {
		if w.shown[i] == surplusText {
			continue
		}
		if err := w.finalCall(ctx, w.key, fmt.Sprintf("retire message %d", i+1), func(ctx context.Context) error {
			return w.edit(ctx, i, surplusText)
		}); err != nil {
			return err
		}
	}
	return nil
}

// recallShown fills in, after a restart, what the messages are known to
// show: the record's Text names the leading parts already delivered.
func (w *ReplyWriter) recallShown(parts []string) {
	if w.rec.Text == "" {
		return
	}
	for k := min(len(w.rec.Refs), len(parts)); k > 0; k-- {
		if joinParts(parts[:k]) != w.rec.Text {
			continue
		}
		for j := range k {
			if w.shown[j] == unknownText {
				w.shown[j] = parts[j]
			}
		}
		return
	}
}

// finalCall runs call until it succeeds or ctx ends, each attempt paced by
// key's shared bucket (the edits' or the posts').
func (w *ReplyWriter) finalCall(ctx context.Context, key PaceKey, what string, call func(context.Context) error) error {
	var last error
	for attempt := 0; ; attempt++ {
		// The final goes ahead of streaming frames waiting on the bucket.
		if err := w.d.cfg.Pacer.WaitFirst(ctx, key); err != nil {
			return w.gaveUp(ctx, what, last)
		}
		err := call(ctx)
		if err == nil {
			return nil
		}
		last = err
		if wait, ok := chat.RetryAfter(err); ok {
			w.d.cfg.Pacer.Penalize(key, wait)
			w.log.Debug("final answer rate limited", "step", what, "retry_after", wait)
			continue
		}
		w.log.Warn("final answer step failed; retrying", "step", what, "attempt", attempt+1, "err", err)
		if w.d.cfg.Sleep(ctx, backoff(attempt)) != nil {
			return w.gaveUp(ctx, what, last)
		}
	}
}

func (w *ReplyWriter) gaveUp(ctx context.Context, what string, last error) error {
	cause := context.Cause(ctx)
	if last == nil {
		return fmt.Errorf("%s: %w", what, cause)
	}
	return fmt.Errorf("%s: %w (last error: %w)", what, cause, last)
}

// backoff is the wait before retry attempt+1 of a final call that failed
// with something other than a 429 (which says itself how long to wait):
// equal jitter, so that replies failing together do not retry together,
// yet none retries much sooner than planned.
func backoff(attempt int) time.Duration {
	return bo.Policy{Base: 500 * time.Millisecond, Cap: 30 * time.Second, Jitter: bo.Equal}.Delay(attempt)
}

// withDeadline bounds ctx by FinalDeadline on the Delivery's clock.
func (w *ReplyWriter) withDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		if w.d.cfg.Sleep(ctx, w.d.cfg.FinalDeadline) == nil {
			cancel(errFinalDeadline)
		}
	}()
	return ctx, func() { cancel(nil) }
}

// fail records that the final answer could not be delivered, logs it and,
// best effort, says so in the conversation.
func (w *ReplyWriter) fail(ctx context.Context, err error) error {
	w.rec.Status = ReplyFailed
	w.save(ctx)
	w.log.Error("reply not delivered", "refs", w.rec.Refs, "attempts", w.rec.Attempts, "err", err)
	nctx, cancel := w.callCtx(ctx)
	defer cancel()
	if werr := w.d.cfg.Pacer.Wait(nctx, w.postKey); werr == nil {
		if _, serr := w.d.cfg.Adapter.Send(nctx, w.thread, chat.Out{Text: failedNotice, ReplyTo: w.replyTo}); serr != nil {
			w.log.Warn("could not post the delivery failure notice", "err", serr)
		}
	}
	return fmt.Errorf("delivery: reply to %q: %w", w.rec.InboxKey, err)
}
