package outbound_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

// The delivery goroutines, the pacer and the fake platform are all in
// memory, so these tests run in synctest bubbles: time is fake and moves
// only when every goroutine waits. time.Sleep in a test body stands for
// the model taking its time, never for synchronization.

// TestDeliveryFastStream: a model streaming 500 deltas over 10 s against
// one edit per second. The platform never refuses a call, at least 80 % of
// the budget is used to show progress, and the final answer is shown
// within one interval of Finish.
func TestDeliveryFastStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const every = time.Second
		h := newDL(t, capsEvery(every), bottest.Config{}, nil)
		ctx := t.Context()
		start := time.Now()
		w := h.begin(t, ctx, "k1")
		var final strings.Builder
		for i := range 500 {
			delta := fmt.Sprintf("w%d ", i)
			final.WriteString(delta)
			if err := w.Delta(ctx, delta); err != nil {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		finishAt := time.Now()
		want := strings.TrimSpace(final.String()) // what a platform shows
		if err := w.Finish(ctx, final.String()); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(finishAt); took > every {
			t.Errorf("Finish took %s, want at most one interval (%s)", took, every)
		}

		allowed := int(finishAt.Sub(start)/every) + 1 // the burst of 1, then one per interval
		used, shownAt := 0, time.Time{}
		for _, c := range h.fake.Calls() {
			if (c.Op == bottest.OpSend || c.Op == bottest.OpEdit) && c.Applied && !c.At.After(finishAt) {
				used++
			}
			if c.Op == bottest.OpEdit && c.Applied && c.Out.Text == want && shownAt.IsZero() {
				shownAt = c.At
			}
		}
		t.Logf("%d of %d allowed calls used while streaming; final shown %s after Finish", used, allowed, shownAt.Sub(finishAt))
		if used < allowed*8/10 {
			t.Errorf("%d calls while streaming, want at least 80%% of the %d allowed", used, allowed)
		}
		if shownAt.IsZero() || shownAt.Sub(finishAt) > every {
			t.Errorf("final shown at +%s after Finish, want within %s", shownAt.Sub(finishAt), every)
		}
		if got := h.texts(); len(got) != 1 || got[0] != want {
			t.Errorf("the thread shows %d messages, want exactly the final answer", len(got))
		}
		h.checkPlatform(t)
	})
}

// TestDeliveryWorkspaceBucketShared: ten replies streaming at once in one
// Slack-like workspace share one budget: together they stay within it and
// every final is delivered. A reply that finds the budget busy when its
// first frame is due shows nothing until its final, which it posts in one
// call: a busy budget goes to answers, not to more streams.
func TestDeliveryWorkspaceBucketShared(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const (
			every   = time.Second
			replies = 10
		)
		caps := capsEvery(every)
		caps.EditScope = chat.PacePerWorkspace
		h := newDL(t, caps, bottest.Config{}, nil)
		ctx := t.Context()
		start := time.Now()
		finals := make([]string, replies)
		var wg sync.WaitGroup
		for i := range replies {
			th := h.thread
			th.Chat = fmt.Sprintf("C%d", i)
			w, err := h.d.Begin(ctx, fmt.Sprintf("k%d", i), "s1", th, h.user, "")
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				var b strings.Builder
				for j := range 200 {
					d := fmt.Sprintf("r%d-%d ", i, j)
					b.WriteString(d)
					w.Delta(ctx, d)
					time.Sleep(50 * time.Millisecond)
				}
				finals[i] = b.String()
				if err := w.Finish(ctx, finals[i]); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()

		// The token bucket invariant, checked at every call: by time t at
		// most burst + t/every calls.
		n := 0
		perChat := map[string]int{}
		for _, c := range h.fake.Calls() {
			if (c.Op != bottest.OpSend && c.Op != bottest.OpEdit) || !c.Applied {
				continue
			}
			n++
			perChat[c.Thread.Chat]++
			if budget := 1 + int(c.At.Sub(start)/every); n > budget {
				t.Fatalf("call %d at +%s exceeds the workspace budget of %d", n, c.At.Sub(start), budget)
			}
		}
		for i := range replies {
			th := h.thread
			th.Chat = fmt.Sprintf("C%d", i)
			if perChat[th.Chat] < 1 {
				t.Errorf("reply %d got no call", i)
			}
			if msgs := h.fake.Messages(th); len(msgs) != 1 || msgs[0].Text != strings.TrimSpace(finals[i]) {
				t.Errorf("reply %d: %d messages, want exactly its final answer", i, len(msgs))
			}
		}
		h.checkPlatform(t)
	})
}

// TestDeliveryProgressAndReset walks a reply through status lines, a reset
// (the model call retried) and the final answer, checking what the message
// shows after each step.
func TestDeliveryProgressAndReset(t *testing.T) {
	type step struct {
		do   func(ctx context.Context, w *outbound.ReplyWriter) error
		want string
	}
	delta := func(s string) func(context.Context, *outbound.ReplyWriter) error {
		return func(ctx context.Context, w *outbound.ReplyWriter) error { return w.Delta(ctx, s) }
	}
	progress := func(s string) func(context.Context, *outbound.ReplyWriter) error {
		return func(ctx context.Context, w *outbound.ReplyWriter) error { return w.Progress(ctx, s) }
	}
	reset := func(ctx context.Context, w *outbound.ReplyWriter) error { return w.Reset(ctx) }
	steps := []step{
		{progress("running web_fetch…"), "_running web_fetch…_"}, // the first message is the status line
		{delta("Here is"), "Here is"},                            // text replaces the status
		{progress("running shell…\nwith a second line"), "Here is\n\n_running shell…_"},
		{reset, "_running shell…_"}, // the streamed text is gone, the status stays
		{progress("retrying in 2s"), "_retrying in 2s_"},
		{delta("Second "), "Second"}, // trailing space is invisible
		{delta("try.\n"), "Second try."},
		{delta("   "), "Second try."}, // no edit: nothing visible changed
	}
	synctest.Test(t, func(t *testing.T) {
		h := newDL(t, capsEvery(time.Second), bottest.Config{}, nil)
		ctx := t.Context()
		w := h.begin(t, ctx, "k1")
		for i, s := range steps {
			if err := s.do(ctx, w); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second) // a token for the pump
			synctest.Wait()
			if got := h.texts(); len(got) != 1 || got[0] != s.want {
				t.Fatalf("step %d: the thread shows %q, want [%q]", i, got, s.want)
			}
		}
		if err := w.Progress(ctx, "thinking…"); err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(ctx, "Second try."); err != nil {
			t.Fatal(err)
		}
		if got := h.texts(); len(got) != 1 || got[0] != "Second try." {
			t.Fatalf("final: the thread shows %q, want the answer without a status line", got)
		}
		if err := w.Delta(ctx, "late"); err == nil {
			t.Error("Delta after Finish succeeded")
		}
		h.checkPlatform(t)
	})
}

// TestDeliveryNoopEditsSkipped: changes that render the same (an empty
// delta, a status set twice, a final equal to the streamed text) cost no
// call.
func TestDeliveryNoopEditsSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newDL(t, capsEvery(time.Second), bottest.Config{}, nil)
		ctx := t.Context()
		w := h.begin(t, ctx, "k1")
		w.Delta(ctx, "All done.")
		time.Sleep(2 * time.Second) // placeholder, then the text
		for range 5 {
			w.Delta(ctx, "")
			time.Sleep(time.Second)
		}
		if err := w.Finish(ctx, "All done."); err != nil {
			t.Fatal(err)
		}
		if n := len(h.fake.Sent()); n != 1 {
			t.Errorf("%d sends, want 1", n)
		}
		if n := len(h.fake.Edits()); n != 1 {
			t.Errorf("%d edits, want 1 (placeholder → text; nothing after)", n)
		}
		h.checkPlatform(t)
	})
}

// TestDeliveryTyping: the typing indicator shows at once and is repeated
// until the first message exists; its errors do not matter.
func TestDeliveryTyping(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newDL(t, capsEvery(time.Second), bottest.Config{}, nil)
		ctx := t.Context()
		h.fake.FailNext(bottest.OpTyping, 1, bottest.ErrServer)
		start := time.Now()
		w := h.begin(t, ctx, "k1")
		synctest.Wait()
		if n := len(h.fake.Calls()); n != 1 || h.fake.Calls()[0].Op != bottest.OpTyping || !h.fake.Calls()[0].At.Equal(start) {
			t.Fatalf("calls at once = %+v, want one typing indicator", h.fake.Calls())
		}
		time.Sleep(12 * time.Second) // a long think: repeated every 5 s
		if n := len(h.fake.Typings()); n != 2 {
			t.Errorf("%d typing indicators shown after 12 s, want 2 (the first failed)", n)
		}
		w.Delta(ctx, "hi")
		time.Sleep(30 * time.Second)
		if n := len(h.fake.Typings()); n != 2 {
			t.Errorf("%d typing indicators, want still 2: none once the message exists", n)
		}
		if err := w.Finish(ctx, "hi"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(h.logs.String(), "typing indicator failed") {
			t.Error("the typing failure was not logged")
		}
	})
}

// TestDeliveryPreviewCappedAtSplitAt: while streaming, the message shows
// at most SplitAt of the text (the rest follows with the final answer), so
// the edit never exceeds the platform's limit.
func TestDeliveryPreviewCappedAtSplitAt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		caps := capsEvery(time.Second)
		caps.MaxLen, caps.SplitAt = 200, 150
		h := newDL(t, caps, bottest.Config{}, nil)
		ctx := t.Context()
		w := h.begin(t, ctx, "k1")
		var final strings.Builder
		for i := range 60 {
			line := fmt.Sprintf("line %02d\n", i) // 8 characters
			final.WriteString(line)
			w.Delta(ctx, line)
			time.Sleep(100 * time.Millisecond)
		}
		synctest.Wait()
		got := h.texts()
		if len(got) != 1 || !strings.HasSuffix(got[0], "\n\n…") || len([]rune(got[0])) > caps.MaxLen {
			t.Fatalf("preview = %q, want one message of at most %d ending in the marker", got, caps.MaxLen)
		}
		if err := w.Finish(ctx, final.String()); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(h.texts(), "\n"); got != strings.TrimSuffix(final.String(), "\n") {
			t.Errorf("the parts show\n%s\nwant\n%s", got, final.String())
		}
		h.checkPlatform(t)
	})
}

// TestDeliveryCancelledMidStream: /stop or shutdown cancels the turn's
// context; Finish is still called, with a cancelled context, and delivers.
func TestDeliveryCancelledMidStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newDL(t, capsEvery(time.Second), bottest.Config{}, nil)
		ctx, cancel := context.WithCancel(t.Context())
		w := h.begin(t, ctx, "k1")
		w.Delta(ctx, "partial answer")
		time.Sleep(1500 * time.Millisecond)
		cancel()
		w.Delta(ctx, " and more")
		if err := w.Finish(ctx, w.Streamed()+"\n\n_⏹ stopped_"); err != nil {
			t.Fatal(err)
		}
		if got := h.texts(); len(got) != 1 || got[0] != "partial answer and more\n\n_⏹ stopped_" {
			t.Errorf("the thread shows %q", got)
		}
		h.checkPlatform(t)
	})
}

// replyFactory is how the wiring hands deliveries to the router: one
// Delivery per platform. A failed Begin must return a nil Reply, not a nil
// *ReplyWriter inside a non-nil interface.
func replyFactory(byPlatform map[string]*outbound.Delivery) bot.ReplyFactory {
	return func(ctx context.Context, a chat.Adapter, key, sid string, t chat.Thread, u chat.User, replyTo string) (outbound.Reply, error) {
		d, ok := byPlatform[a.Platform()]
		if !ok {
			return nil, fmt.Errorf("no delivery for %s", a.Platform())
		}
		w, err := d.Begin(ctx, key, sid, t, u, replyTo)
		if err != nil {
			return nil, err
		}
		return w, nil
	}
}

func TestDeliveryAsReplyFactory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newDL(t, capsEvery(time.Second), bottest.Config{}, nil)
		ctx := t.Context()
		open := replyFactory(map[string]*outbound.Delivery{h.fake.Platform(): h.d})
		r, err := open(ctx, h.fake, "k1", "s1", h.thread, h.user, "m1")
		if err != nil {
			t.Fatal(err)
		}
		r.Delta(ctx, "Hi")
		if err := r.Finish(ctx, "Hi there."); err != nil {
			t.Fatal(err)
		}
		msgs := h.fake.Messages(h.thread)
		if len(msgs) != 1 || msgs[0].Text != "Hi there." || msgs[0].ReplyTo != "m1" {
			t.Errorf("messages %+v", msgs)
		}
		if _, err := open(ctx, bottest.New(bottest.Config{Platform: "other"}), "k2", "s1", h.thread, h.user, ""); err == nil {
			t.Error("a platform without a delivery got a reply")
		}
	})
}

// TestDeliveryPlainFallback: when the platform refuses the formatting (a
// renderer bug, Telegram's "can't parse entities"), the same call is made
// again as plain text: the answer still lands, once.
func TestDeliveryPlainFallback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newDL(t, capsEvery(time.Second), bottest.Config{}, nil)
		rejected := fmt.Errorf("Bad Request: can't parse entities: %w", chat.ErrFormatRejected)
		h.fake.FailNext(bottest.OpSend, 1, rejected)
		h.fake.FailNext(bottest.OpEdit, 1, rejected)
		ctx := t.Context()
		w := h.begin(t, ctx, "k1")
		w.Delta(ctx, "Use **bold** <carefully>")
		time.Sleep(3 * time.Second)
		if err := w.Finish(ctx, "Use **bold** <carefully>."); err != nil {
			t.Fatal(err)
		}
		var plainSend, plainEdit bool
		for _, c := range h.fake.Calls() {
			if c.Err == nil && c.Out.Plain {
				plainSend = plainSend || c.Op == bottest.OpSend
				plainEdit = plainEdit || c.Op == bottest.OpEdit
			}
		}
		if !plainSend || !plainEdit {
			t.Fatalf("no plain retry after the rejections (send %v, edit %v)", plainSend, plainEdit)
		}
		if n := h.countText("Use **bold** <carefully>."); n != 1 {
			t.Fatalf("final shown %d times", n)
		}
		h.checkDuplicates(t)
	})
}

// TestDeliveryTypingRenewedBeforeItFades: an adapter that says how long
// its indicator lasts (Discord ~10 s) gets it renewed at 4/5 of that, so
// it never flickers off during a long think.
func TestDeliveryTypingRenewedBeforeItFades(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		caps := capsEvery(time.Second)
		caps.TypingLasts = 10 * time.Second
		h := newDL(t, caps, bottest.Config{}, nil)
		ctx := t.Context()
		start := time.Now()
		w := h.begin(t, ctx, "k1")
		time.Sleep(17 * time.Second)
		var at []time.Duration
		for _, c := range h.fake.Calls() {
			if c.Op == bottest.OpTyping {
				at = append(at, c.At.Sub(start))
			}
		}
		if want := []time.Duration{0, 8 * time.Second, 16 * time.Second}; !slices.Equal(at, want) {
			t.Errorf("typing shown at %v, want %v", at, want)
		}
		w.Delta(ctx, "hi")
		if err := w.Finish(ctx, "hi"); err != nil {
			t.Fatal(err)
		}
	})
}
