package outbound

import (
	"context"
	"errors"
	"fmt"
	"github.com/parleybot/parley/chat"
	"strconv"
	"time"
)

// A reply's first message, when the model is done before a frame was due,
// is its final answer (docs/architecture.md, "One reply, one message"):
// one call, no placeholder, no edit. Answer text then reaches a message by
// a create, whose outcome a crash or a timeout can leave unknown, so every
// such create is made exactly once as far as the platform allows:
//
//   - the intent is recorded first (ReplyPosting: part len(Refs) is being
//     posted), so a restart knows the part may exist;
//   - the create carries Out.Key, the reply's inbox key and the part's
//     number, which the adapter hands to the platform: Discord returns the
//     message created earlier with the same nonce (enforce_nonce), Slack
//     keeps it in the message's metadata;
//   - before posting a part whose earlier create is unknown, delivery asks a
//     SentFinder (Slack: the conversation's history) and adopts what it
//     finds, else it posts again with the same key.
//
// Telegram offers neither: a crash inside the window between its
// sendMessage and the record of its result (one round trip and one SQLite
// write) shows that part twice after the restart. The window is as small
// as a create allows, and nothing outside it repeats a message.

// partKey is Out.Key of part i (from 0) of the final answer to inboxKey.
func partKey(inboxKey string, i int) string {
	return inboxKey + "#" + strconv.Itoa(i+1)
}

// postPart posts part i, the next message the reply needs, showing its
// final text. It records the intent before the call and the ref after it;
// an error leaves the intent, and w.unsure, in place unless the platform
// refused the call before doing anything (a 429, a formatting refusal).
//
// shows is the record's Text once the part shows (the parts up to it), and
// last says no step follows: the record is then saved delivered at once,
// one write for the ref and the status.
func (w *ReplyWriter) postPart(ctx context.Context, i int, part, shows string, last bool) error {
	key := partKey(w.rec.InboxKey, i)
	if w.unsure {
		found, err := w.findSent(ctx, key)
		if err != nil || found {
			return err
		}
	}
	if w.rec.Status != ReplyPosting {
		w.rec.Status = ReplyPosting
		w.save(ctx)
	}
	w.unsure = true
	ref, err := w.send(ctx, chat.Out{Text: part, ReplyTo: w.replyTo, Key: key})
	if ref.ID == "" {
		if _, limited := chat.RetryAfter(err); limited || errors.Is(err, chat.ErrFormatRejected) {
			w.unsure = false // refused: nothing was created
		}
		if err == nil {
			err = errors.New("the adapter returned no message id")
		}
		return fmt.Errorf("send: %w", err)
	}
	shown := part
	if err != nil {
		// The adapter knows the message exists, not what it shows.
		w.log.Warn("send reported an error but the message exists; keeping it", "ref", ref.ID, "err", err)
		shown = unknownText
	}
	w.unsure = false
	w.rec.Refs = append(w.rec.Refs, ref.ID)
	w.shown = append(w.shown, shown)
	w.posted.Store(true)
	w.rec.Status = ReplyStreaming
	if shown != unknownText {
		w.rec.Text = shows
		if last {
			w.rec.Status = ReplyDelivered
		}
	}
	w.save(ctx)
	return nil
}

// findSent asks the adapter, when it can tell, whether the message of key
// exists already, and adopts it if so.
func (w *ReplyWriter) findSent(ctx context.Context, key string) (bool, error) {
	f, ok := w.d.cfg.Adapter.(chat.SentFinder)
	if !ok {
		return false, nil
	}
	cctx, cancel := w.callCtx(ctx)
	ref, found, err := f.FindSent(cctx, w.thread, key, w.replyTo)
	cancel()
	if err != nil {
		return false, fmt.Errorf("look for the message of an earlier post: %w", err)
	}
	if !found || ref.ID == "" {
		return false, nil
	}
	w.log.Info("found the message an earlier post created; not posting it again", "ref", ref.ID, "key", key)
	// What it shows is not known here: the final edits it if need be.
	w.adopt(ctx, ref.ID, unknownText)
	return true, nil
}

// adopt records a message the reply now has, ending the intent.
func (w *ReplyWriter) adopt(ctx context.Context, id, shown string) {
	w.unsure = false
	w.rec.Refs = append(w.rec.Refs, id)
	w.shown = append(w.shown, shown)
	w.posted.Store(true)
	w.rec.Status = ReplyStreaming
	w.save(ctx)
}

// maxFirstFrameAfter bounds the default FirstFrameAfter: a group whose
// budget is one message in three seconds still sees its first frame after
// a second, like a private chat.
const maxFirstFrameAfter = time.Second

// holdFirst holds a reply that shows nothing yet until its first frame is
// due (FirstFrameAfter after the first state to show), and then until its
// budget is free (Pacer.Free): a frame spent now would make the final wait
// an interval for its own budget, and a bot whose budget binds gives it to
// answers. False when ctx ended meanwhile (Finish takes over).
func (w *ReplyWriter) holdFirst(ctx context.Context) bool {
	if w.framed || len(w.rec.Refs) > 0 || w.nat.mode == nativeOpen {
		return true
	}
	after := w.d.cfg.FirstFrameAfter
	if after == 0 {
		after = min(w.d.cfg.Pacer.Interval(w.key), maxFirstFrameAfter)
	}
	if after < 0 {
		w.framed = true
		return true
	}
	if w.due.IsZero() {
		w.due = w.d.cfg.Now().Add(after)
	}
	for {
		if d := w.due.Sub(w.d.cfg.Now()); d > 0 {
			if w.d.cfg.Sleep(ctx, d) != nil {
				return false
			}
			continue
		}
		if w.d.cfg.Pacer.Free(w.key) && w.d.cfg.Pacer.Free(w.postKey) {
			w.framed = true
			return true
		}
		// The budget binds: look again an interval later, unless the
		// final comes first.
		w.due = w.d.cfg.Now().Add(max(w.d.cfg.Pacer.Interval(w.key), minFrameRecheck))
	}
}

// minFrameRecheck is how often a held first frame looks at an unpaced
// budget under a penalty.
const minFrameRecheck = 250 * time.Millisecond
