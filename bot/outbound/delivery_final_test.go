package outbound_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/bot/outbound"
)

// stream sends n deltas, one every gap, and returns the text they make:
// words, ten to a line.
func stream(ctx context.Context, w *outbound.ReplyWriter, n int, gap time.Duration) string {
	var b strings.Builder
	for i := range n {
		sep := " "
		if i%10 == 9 {
			sep = "\n"
		}
		d := fmt.Sprintf("t%d%s", i, sep)
		b.WriteString(d)
		w.Delta(ctx, d)
		time.Sleep(gap)
	}
	return b.String()
}

// longAnswer returns an answer of about n×limit characters in lines of
// prose, with a code fence from line fenceFrom to fenceTo.
func longAnswer(lines, fenceFrom, fenceTo int) string {
	var b strings.Builder
	for i := range lines {
		switch {
		case i == fenceFrom:
			b.WriteString("```go\n")
		case i == fenceTo:
			b.WriteString("```\n")
		case i > fenceFrom && i < fenceTo:
			fmt.Fprintf(&b, "x%02d := compute(%02d) // step\n", i, i)
		default:
			fmt.Fprintf(&b, "Line %02d of the answer, in prose.\n", i)
		}
	}
	return b.String()
}

// TestDelivery429Storm: 40 % of the calls are refused with a retry-after,
// while streaming and while finishing. The reply still ends as exactly one
// complete answer, with no duplicate and nothing over the platform's own
// limit.
func TestDelivery429Storm(t *testing.T) {
	tests := []struct {
		name string
		seed uint64
		ops  []bottest.Op
	}{
		{"edits, seed 1", 1, []bottest.Op{bottest.OpEdit}},
		{"edits, seed 2", 2, []bottest.Op{bottest.OpEdit}},
		{"edits, seed 3", 3, []bottest.Op{bottest.OpEdit}},
		{"sends and edits, seed 4", 4, []bottest.Op{bottest.OpSend, bottest.OpEdit}},
		{"sends and edits, seed 5", 5, []bottest.Op{bottest.OpSend, bottest.OpEdit}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				caps := capsEvery(time.Second)
				caps.MaxLen, caps.SplitAt = 400, 300
				h := newDL(t, caps, bottest.Config{Seed: tt.seed}, nil)
				for _, op := range tt.ops {
					h.fake.FailRate(op, 0.4, bottest.RateLimited(2*time.Second))
				}
				ctx := t.Context()
				w := h.begin(t, ctx, "k1")
				final := stream(ctx, w, 150, 100*time.Millisecond) // ~800 characters: 3 parts
				if err := w.Finish(ctx, final); err != nil {
					t.Fatal(err)
				}
				injected := 0
				for _, op := range tt.ops {
					injected += h.fake.Injected(op)
				}
				if injected == 0 {
					t.Fatal("no 429 was injected")
				}
				if got := strings.Join(h.texts(), "\n"); got != strings.TrimSpace(final) {
					t.Errorf("the thread shows\n%q\nwant the answer once\n%q", got, final)
				}
				rec, _, _ := h.box.Reply(ctx, "k1")
				if rec.Status != outbound.ReplyDelivered || len(rec.Refs) != len(h.texts()) {
					t.Errorf("record %+v; want delivered, one ref per message", rec)
				}
				h.checkPlatform(t)
			})
		})
	}
}

// TestDeliveryErrorAfterSend: the platform creates the message but the
// call returns an error. A placeholder (a frame) whose ref is lost stays
// behind as a stray; a final part, posted with its text, is looked for
// (a SentFinder: Slack) or posted again with the same Out.Key, which a
// keyed platform (Discord's nonce) answers with the first message. Only a
// platform with neither (Telegram) shows that part twice: the residual
// risk of a create without a placeholder (delivery_post.go).
func TestDeliveryErrorAfterSend(t *testing.T) {
	tests := []struct {
		name      string
		op        bottest.Op
		returnRef bool
		long      bool // a 2-part answer; the fault hits the continuation
		fake      bottest.Config
		strays    int // placeholders left behind
		twice     int // answer parts shown twice
	}{
		{"first send, ref returned", bottest.OpSend, true, false, bottest.Config{}, 0, 0},
		{"first send, no ref", bottest.OpSend, false, false, bottest.Config{}, 1, 0},
		{"continuation send, ref returned", bottest.OpSend, true, true, bottest.Config{}, 0, 0},
		{"continuation send, no ref, keyed sends", bottest.OpSend, false, true, bottest.Config{KeyedSends: true}, 0, 0},
		{"continuation send, no ref, findable sends", bottest.OpSend, false, true, bottest.Config{FindsSent: true}, 0, 0},
		{"continuation send, no ref, neither", bottest.OpSend, false, true, bottest.Config{}, 0, 1},
		// An edit whose outcome is unknown is made again: a no-op if it
		// had landed (adapters report "not modified" as success).
		{"edit applied, then an error", bottest.OpEdit, false, false, bottest.Config{}, 0, 0},
		{"continuation edit applied, then an error", bottest.OpEdit, false, true, bottest.Config{}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				caps := capsEvery(time.Second)
				caps.MaxLen, caps.SplitAt = 400, 300
				h := newDL(t, caps, tt.fake, nil)
				ctx := t.Context()
				if !tt.long {
					h.fake.FailAfter(tt.op, 1, bottest.ErrServer, tt.returnRef)
				}
				w := h.begin(t, ctx, "k1")
				final := "A short answer."
				if tt.long {
					final = longAnswer(20, 5, 9) // ~640 characters
				}
				w.Delta(ctx, "A short")
				time.Sleep(3 * time.Second)
				if tt.long {
					// The first message exists and shows text: the
					// fault hits the continuation.
					h.fake.FailAfter(tt.op, 1, bottest.ErrServer, tt.returnRef)
				}
				if err := w.Finish(ctx, final); err != nil {
					t.Fatal(err)
				}
				var answer, strays []string
				for _, s := range h.texts() {
					if s == "…" {
						strays = append(strays, s)
					} else if len(answer) == 0 || answer[len(answer)-1] != s {
						answer = append(answer, s)
					}
				}
				if got := strings.Join(answer, "\n"); got != strings.TrimSpace(final) {
					t.Errorf("the answer shows as\n%q\nwant\n%q", got, final)
				}
				if len(strays) != tt.strays {
					t.Errorf("%d stray placeholders, want %d", len(strays), tt.strays)
				}
				if twice := len(h.fake.DuplicateFinals()); twice != tt.twice {
					t.Errorf("%d parts shown twice, want %d", twice, tt.twice)
				}
				h.checkRateLimits(t)
			})
		})
	}
}

// TestDeliveryLongFinal: an answer of three times SplitAt with a code
// fence across a split point. Part 1 lands in the streamed message, parts
// 2 and 3 in one new message each; every part fits and has balanced
// fences.
func TestDeliveryLongFinal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		caps := capsEvery(time.Second)
		caps.MaxLen, caps.SplitAt = 360, 300
		h := newDL(t, caps, bottest.Config{}, nil)
		ctx := t.Context()
		w := h.begin(t, ctx, "k1")
		final := longAnswer(27, 6, 14) // ~900 characters; the fence spans the first cut
		w.Delta(ctx, final[:200])
		time.Sleep(3 * time.Second)
		first := h.fake.Sent()[0].Ref
		if err := w.Finish(ctx, final); err != nil {
			t.Fatal(err)
		}

		msgs := h.fake.Messages(h.thread)
		if len(msgs) != 3 {
			t.Fatalf("%d messages, want 3", len(msgs))
		}
		if msgs[0].Ref != first {
			t.Errorf("part 1 is in %v, want the streamed message %v", msgs[0].Ref, first)
		}
		if n := len(h.fake.Sent()); n != 3 {
			t.Errorf("%d sends, want 3: the streamed message and one per continuation", n)
		}
		edits := map[string]int{}
		for _, e := range h.fake.Edits() {
			edits[e.Out.Text]++
		}
		split := false
		for i, m := range msgs {
			if n := len([]rune(m.Text)); n > caps.MaxLen {
				t.Errorf("part %d has %d characters, over MaxLen %d", i+1, n, caps.MaxLen)
			}
			if !fenceBalanced(m.Text) {
				t.Errorf("part %d has an unbalanced fence:\n%s", i+1, m.Text)
			}
			if n := h.arrivals()[m.Text]; n != 1 {
				t.Errorf("part %d's text reached its message %d times, want once", i+1, n)
			}
			if i > 0 && strings.HasPrefix(m.Text, "```go\n") {
				split = true // the fence was reopened
			}
		}
		if !split {
			t.Error("no part reopens the code fence: the test did not split inside it")
		}
		rec, _, _ := h.box.Reply(ctx, "k1")
		if rec.Status != outbound.ReplyDelivered || rec.Attempts != 1 || len(rec.Refs) != 3 || rec.Text != strings.Join(h.texts(), "\n\n") {
			t.Errorf("record %+v", rec)
		}
		h.checkPlatform(t)
	})
}

// TestDeliveryCrashResume: the process dies during the delivery; a new
// Delivery with the same outbox continues the same messages. Over both
// processes each message is posted once and each part's text is edited in
// once.
func TestDeliveryCrashResume(t *testing.T) {
	tests := []struct {
		name string
		// crash runs the first process until it is gone.
		crash func(t *testing.T, ctx context.Context, h *dl, final string)
	}{
		{"final failed after part 2 was shown", func(t *testing.T, ctx context.Context, h *dl, final string) {
			w := h.begin(t, ctx, "k1")
			w.Delta(ctx, "Line 00")
			time.Sleep(3 * time.Second)
			h.fake.FailFrom(bottest.OpSend, 1, bottest.ErrServer) // part 2 is posted, part 3 never
			if err := w.Finish(ctx, final); err == nil {
				t.Fatal("Finish succeeded")
			}
		}},
		{"final failed after part 1's edit", func(t *testing.T, ctx context.Context, h *dl, final string) {
			w := h.begin(t, ctx, "k1")
			w.Delta(ctx, "Line 00")
			time.Sleep(3 * time.Second)
			h.fake.FailFrom(bottest.OpSend, 0, bottest.ErrServer) // part 1's edit passes, part 2 is never posted
			if err := w.Finish(ctx, final); err == nil {
				t.Fatal("Finish succeeded")
			}
		}},
		{"crashed while streaming", func(t *testing.T, ctx context.Context, h *dl, final string) {
			ctx, cancel := context.WithCancel(ctx)
			w := h.begin(t, ctx, "k1")
			w.Delta(ctx, final[:100])
			time.Sleep(3 * time.Second)
			cancel() // the process is gone; Finish never runs
			synctest.Wait()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				caps := capsEvery(time.Second)
				caps.MaxLen, caps.SplitAt = 360, 300
				h := newDL(t, caps, bottest.Config{}, func(c *outbound.DeliveryConfig) { c.FinalDeadline = 20 * time.Second })
				ctx := t.Context()
				final := longAnswer(27, 6, 14)
				tt.crash(t, ctx, h, final)
				before, _, _ := h.box.Reply(ctx, "k1")
				if len(before.Refs) == 0 {
					t.Fatal("the first process left no message")
				}

				// Restart: new Delivery and Pacer, same outbox and platform.
				// The new pacer knows nothing of the platform's bucket;
				// a restart takes long enough for it to refill.
				time.Sleep(5 * time.Second)
				h.fake.ClearFaults()
				h.d = h.delivery(t, nil)
				w := h.begin(t, ctx, "k1")
				if err := w.Finish(ctx, final); err != nil {
					t.Fatal(err)
				}

				var answer []string
				for _, s := range h.texts() {
					if s != "⚠️ I could not deliver the full answer." {
						answer = append(answer, s)
					}
				}
				if len(answer) != 3 {
					t.Fatalf("%d messages carry the answer, want 3: %q", len(answer), answer)
				}
				arrived := h.arrivals()
				for i, p := range answer {
					if arrived[p] != 1 {
						t.Errorf("part %d's text reached its message %d times, want once", i+1, arrived[p])
					}
				}
				posted := 0
				for _, s := range h.fake.Sent() {
					if s.Out.Text != "⚠️ I could not deliver the full answer." {
						posted++
					}
				}
				if posted != 3 {
					t.Errorf("%d answer messages posted, want 3", posted)
				}
				rec, _, _ := h.box.Reply(ctx, "k1")
				if rec.Status != outbound.ReplyDelivered || len(rec.Refs) != 3 || rec.Refs[0] != before.Refs[0] {
					t.Errorf("record %+v; want delivered, continuing %v", rec, before.Refs)
				}
				h.checkPlatform(t)
			})
		})
	}
}

// TestDeliveryFinal5xxRetried: the final edit fails with 5xx three times;
// it is retried with growing, jittered backoff and delivered.
func TestDeliveryFinal5xxRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newDL(t, capsEvery(time.Second), bottest.Config{}, nil)
		ctx := t.Context()
		w := h.begin(t, ctx, "k1")
		w.Delta(ctx, "Almost")
		time.Sleep(3 * time.Second)
		h.fake.FailNext(bottest.OpEdit, 3, bottest.ErrServer)
		if err := w.Finish(ctx, "Almost there."); err != nil {
			t.Fatal(err)
		}
		if got := h.texts(); len(got) != 1 || got[0] != "Almost there." {
			t.Fatalf("the thread shows %q", got)
		}
		var at []time.Time
		for _, c := range h.fake.Calls() {
			if c.Op == bottest.OpEdit && c.Out.Text == "Almost there." {
				at = append(at, c.At)
			}
		}
		if len(at) != 4 {
			t.Fatalf("%d tries of the final edit, want 4", len(at))
		}
		for i := 1; i < len(at)-1; i++ {
			if gap, prev := at[i+1].Sub(at[i]), at[i].Sub(at[i-1]); gap < prev/2 || gap < 250*time.Millisecond {
				t.Errorf("retry %d came %s after the previous (before that %s): want a growing backoff", i+1, gap, prev)
			}
		}
		rec, _, _ := h.box.Reply(ctx, "k1")
		if rec.Status != outbound.ReplyDelivered || rec.Attempts != 1 {
			t.Errorf("record %+v", rec)
		}
		if !strings.Contains(h.logs.String(), "final answer step failed; retrying") {
			t.Error("the retries were not logged")
		}
		h.checkPlatform(t)
	})
}

// TestDeliveryFinalDeadline: a final that keeps failing is given up at the
// deadline: the record is failed, the failure logged, and a short notice
// posted.
func TestDeliveryFinalDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const deadline = 10 * time.Minute // the default FinalDeadline
		h := newDL(t, capsEvery(time.Second), bottest.Config{}, nil)
		ctx := t.Context()
		w := h.begin(t, ctx, "k1")
		w.Delta(ctx, "Almost")
		time.Sleep(3 * time.Second)
		h.fake.FailRate(bottest.OpEdit, 1, bottest.ErrServer)
		start := time.Now()
		err := w.Finish(ctx, "Almost there.")
		if err == nil {
			t.Fatal("Finish succeeded")
		}
		if took := time.Since(start); took < deadline || took > deadline+2*time.Second {
			t.Errorf("Finish gave up after %s, want about %s", took, deadline)
		}
		if !strings.Contains(err.Error(), "deadline") || !strings.Contains(err.Error(), bottest.ErrServer.Error()) {
			t.Errorf("error %q should name the deadline and the last failure", err)
		}
		rec, _, _ := h.box.Reply(ctx, "k1")
		if rec.Status != outbound.ReplyFailed {
			t.Errorf("record %+v, want failed", rec)
		}
		if !strings.Contains(h.logs.String(), "reply not delivered") {
			t.Error("the failure was not logged")
		}
		if got := h.texts(); len(got) != 2 || got[1] != "⚠️ I could not deliver the full answer." {
			t.Errorf("the thread shows %q, want the partial answer and a notice", got)
		}
		if err2 := w.Finish(ctx, "again"); err2 != err {
			t.Errorf("a second Finish returned %v, want the first result", err2)
		}
	})
}

// TestDeliveryEmptyFinal: an empty final answer shows the streamed text,
// or, when there is none, a short notice rather than nothing.
func TestDeliveryEmptyFinal(t *testing.T) {
	tests := []struct {
		name   string
		deltas []string
		final  string
		want   string
	}{
		{"nothing at all", nil, "", "_(no answer)_"},
		{"only whitespace", []string{" \n"}, "  ", "_(no answer)_"},
		{"streamed, empty final", []string{"streamed ", "text"}, "", "streamed text"},
		{"final without streaming", nil, "just the final", "just the final"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newDL(t, capsEvery(time.Second), bottest.Config{}, nil)
				ctx := t.Context()
				w := h.begin(t, ctx, "k1")
				for _, d := range tt.deltas {
					w.Delta(ctx, d)
				}
				if err := w.Finish(ctx, tt.final); err != nil {
					t.Fatal(err)
				}
				if got := h.texts(); len(got) != 1 || got[0] != tt.want {
					t.Errorf("the thread shows %q, want [%q]", got, tt.want)
				}
				h.checkPlatform(t)
			})
		})
	}
}

// TestDeliveryDeliveredNotRedelivered: a crash after delivery, before the
// inbox was marked done, re-runs the turn; the reply is not shown again.
func TestDeliveryDeliveredNotRedelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newDL(t, capsEvery(time.Second), bottest.Config{}, nil)
		ctx := t.Context()
		w := h.begin(t, ctx, "k1")
		if err := w.Finish(ctx, "The answer."); err != nil {
			t.Fatal(err)
		}
		calls := len(h.fake.Calls())

		h.d = h.delivery(t, nil)
		w = h.begin(t, ctx, "k1")
		if err := w.Delta(ctx, "a new run"); err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(ctx, "A different answer."); err != nil {
			t.Fatal(err)
		}
		if n := len(h.fake.Calls()); n != calls {
			t.Errorf("%d more platform calls, want none", n-calls)
		}
		if got := h.texts(); len(got) != 1 || got[0] != "The answer." {
			t.Errorf("the thread shows %q", got)
		}
	})
}

// TestDeliveryResumeShorterAnswer: the turn is re-run after a crash and the
// new answer needs fewer messages than the old one had; the extra messages
// are retired (there is no delete), and nothing is posted.
func TestDeliveryResumeShorterAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		caps := capsEvery(time.Second)
		caps.MaxLen, caps.SplitAt = 360, 300
		h := newDL(t, caps, bottest.Config{}, func(c *outbound.DeliveryConfig) { c.FinalDeadline = 10 * time.Second })
		ctx := t.Context()
		w := h.begin(t, ctx, "k1")
		h.fake.FailFrom(bottest.OpSend, 2, bottest.ErrServer) // parts 1 and 2 posted, part 3 and the notice never
		if err := w.Finish(ctx, longAnswer(27, 6, 14)); err == nil {
			t.Fatal("Finish succeeded")
		}
		time.Sleep(5 * time.Second)
		h.fake.ClearFaults()
		h.d = h.delivery(t, nil)
		w = h.begin(t, ctx, "k1")
		w.Delta(ctx, "A shorter")
		time.Sleep(2 * time.Second)
		if err := w.Finish(ctx, "A shorter answer this time."); err != nil {
			t.Fatal(err)
		}
		want := []string{"A shorter answer this time.", "_(see above)_"}
		if got := h.texts(); !slices.Equal(got, want) {
			t.Errorf("the thread shows %q, want %q", got, want)
		}
		if n := len(h.fake.Sent()); n != 2 {
			t.Errorf("%d messages posted, want the first run's 2 only", n)
		}
		rec, _, _ := h.box.Reply(ctx, "k1")
		if rec.Status != outbound.ReplyDelivered || rec.Attempts != 2 || rec.Text != "A shorter answer this time." {
			t.Errorf("record %+v", rec)
		}
	})
}
