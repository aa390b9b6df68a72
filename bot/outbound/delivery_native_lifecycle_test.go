package outbound_test

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/bot/outbound"
)

// TestNativeCrashResume: the process dies while the answer streams. The
// record holds the stream's message; the restart never starts a second
// stream: it closes the old one (or waits for the platform to end it) and
// delivers the final by editing that message, each part once.
func TestNativeCrashResume(t *testing.T) {
	tests := []struct {
		name   string
		opts   streamOpts
		expire time.Duration
		long   bool
		closed int // CloseStream calls that took effect
	}{
		{"closed by the restart", streamOpts{}, 0, false, 1},
		{"closed by the restart, long answer", streamOpts{}, 0, true, 1},
		{"no closer: edits wait for the stream to expire", streamOpts{noCloser: true}, time.Minute, false, 0},
		{"already expired", streamOpts{}, 3 * time.Second, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				caps := capsEvery(time.Second)
				caps.MaxLen, caps.SplitAt = 360, 300
				h, s := newStreamDL(t, caps, bottest.Config{}, tt.opts, nil)
				s.ExpireStreamsAfter(tt.expire)
				final := "A short answer, streamed until the crash."
				if tt.long {
					final = longAnswer(27, 6, 14)
				}
				runCtx, crash := context.WithCancel(t.Context())
				w := h.begin(t, runCtx, "k1")
				w.Delta(runCtx, final[:30])
				time.Sleep(3 * time.Second)
				crash() // the process is gone; Finish never runs
				synctest.Wait()
				stream := s.Started()[0].Ref
				before, _, _ := h.box.Reply(t.Context(), "k1")
				if before.Status != outbound.ReplyNativeStreaming || len(before.Refs) != 1 || before.Refs[0] != stream.ID {
					t.Fatalf("record at the crash %+v; want the open stream's message", before)
				}

				time.Sleep(5 * time.Second)
				h.d = h.delivery(t, nil)
				ctx := t.Context()
				w = h.begin(t, ctx, "k1")
				if err := w.Finish(ctx, final); err != nil {
					t.Fatal(err)
				}
				if n := streamCalls(s, bottest.OpStartStream); n != 1 {
					t.Errorf("%d StartStream calls, want the first process's only", n)
				}
				if n := len(s.Closed()); n != tt.closed {
					t.Errorf("%d streams closed, want %d", n, tt.closed)
				}
				msgs := h.fake.Messages(h.thread)
				if msgs[0].Ref != stream {
					t.Errorf("the answer starts in %v, want the stream's message %v", msgs[0].Ref, stream)
				}
				wantMsgs := 1
				if tt.long {
					wantMsgs = 3 // its parts, code fences closed and reopened
				}
				if len(msgs) != wantMsgs || (!tt.long && msgs[0].Text != final) {
					t.Errorf("the thread shows\n%q\nwant the answer once, in %d messages", h.texts(), wantMsgs)
				}
				arrived := h.arrivals()
				for i, m := range msgs {
					if arrived[m.Text] != 1 {
						t.Errorf("part %d's text reached its message %d times, want once", i+1, arrived[m.Text])
					}
				}
				rec, _, _ := h.box.Reply(ctx, "k1")
				if rec.Status != outbound.ReplyDelivered || len(rec.Refs) != len(msgs) || rec.Refs[0] != stream.ID {
					t.Errorf("record %+v", rec)
				}
				h.checkDuplicates(t)
				h.checkRateLimits(t)
			})
		})
	}
}

// TestNativeReset: a retried model call during a native stream. The
// stream cannot take text back: it holds still while the new text
// differs, goes on when the retry repeats what it shows, and Finish
// replaces whatever it shows with the final.
func TestNativeReset(t *testing.T) {
	tests := []struct {
		name, first, retry string
		held               string // what the message shows before Finish
	}{
		{"retry differs", "The first try says", "A second attempt, different.", "The first try says"},
		{"retry repeats itself", "Same start", "Same start, then more.", "Same start, then more."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, s := newStreamDL(t, capsEvery(time.Second), bottest.Config{}, streamOpts{}, nil)
				ctx := t.Context()
				w := h.begin(t, ctx, "k1")
				w.Delta(ctx, tt.first)
				time.Sleep(3 * time.Second)
				w.Reset(ctx)
				w.Delta(ctx, tt.retry)
				time.Sleep(3 * time.Second)
				if got := h.texts(); len(got) != 1 || got[0] != tt.held {
					t.Errorf("after the retry the stream shows %q, want %q", got, tt.held)
				}
				if err := w.Finish(ctx, tt.retry); err != nil {
					t.Fatal(err)
				}
				if got := h.texts(); len(got) != 1 || got[0] != tt.retry {
					t.Errorf("the thread shows %q, want the final", got)
				}
				if fin := s.Finished(); len(fin) != 1 || fin[0].Out.Text != tt.retry {
					t.Errorf("finished %+v", fin)
				}
				if n, m := len(h.fake.Sent()), len(h.fake.Edits()); n+m != 0 {
					t.Errorf("%d sends and %d edits, want none", n, m)
				}
				checkStreamCalls(t, s)
			})
		})
	}
}

// TestNativeNoText: a turn without text posts nothing while it runs
// (typing shows; status lines are not posted); at Finish the usual
// send+edit path shows the final, or "(no answer)". No stream is started.
func TestNativeNoText(t *testing.T) {
	tests := []struct{ name, final, want string }{
		{"no answer at all", "", "_(no answer)_"},
		{"failed before any text", "_⚠️ the model is unavailable_", "_⚠️ the model is unavailable_"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, s := newStreamDL(t, capsEvery(time.Second), bottest.Config{}, streamOpts{}, nil)
				ctx := t.Context()
				w := h.begin(t, ctx, "k1")
				w.Progress(ctx, "running web_fetch…")
				time.Sleep(30 * time.Second)
				if n := len(h.fake.AllMessages()); n != 0 {
					t.Errorf("%d messages before Finish, want none", n)
				}
				if n := len(h.fake.Typings()); n < 2 {
					t.Errorf("%d typing indicators in 30 s, want it repeated", n)
				}
				if err := w.Finish(ctx, tt.final); err != nil {
					t.Fatal(err)
				}
				if got := h.texts(); len(got) != 1 || got[0] != tt.want {
					t.Errorf("the thread shows %q, want [%q]", got, tt.want)
				}
				if n := streamCalls(s, bottest.OpStartStream); n != 0 {
					t.Errorf("%d StartStream calls, want none", n)
				}
				h.checkPlatform(t)
			})
		})
	}
}

// TestNativeProgressAsTyping: a native stream cannot show status lines;
// each new status is announced with the typing indicator instead, and the
// stream shows only the answer.
func TestNativeProgressAsTyping(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, s := newStreamDL(t, capsEvery(time.Second), bottest.Config{}, streamOpts{},
			func(c *outbound.DeliveryConfig) { c.TypingEvery = -1 })
		ctx := t.Context()
		w := h.begin(t, ctx, "k1")
		w.Delta(ctx, "Looking")
		time.Sleep(3 * time.Second)
		typings := func() int { return len(h.fake.Typings()) }
		if n := typings(); n != 1 {
			t.Fatalf("%d typing indicators, want the one at Begin", n)
		}
		for i, st := range []struct {
			do    func()
			typed int
			shows string
		}{
			{func() { w.Progress(ctx, "running web_fetch…") }, 2, "Looking"},
			{func() { w.Progress(ctx, "running web_fetch…") }, 2, "Looking"}, // the same status: nothing new
			{func() { w.Delta(ctx, " it up.") }, 2, "Looking it up."},
			{func() { w.Progress(ctx, "running shell…") }, 3, "Looking it up."},
		} {
			st.do()
			time.Sleep(2 * time.Second)
			if n := typings(); n != st.typed {
				t.Errorf("step %d: %d typing indicators, want %d", i, n, st.typed)
			}
			if got := h.texts(); len(got) != 1 || got[0] != st.shows {
				t.Errorf("step %d: the stream shows %q, want %q", i, got, st.shows)
			}
		}
		if err := w.Finish(ctx, "Looking it up. Found it."); err != nil {
			t.Fatal(err)
		}
		if got := h.texts(); len(got) != 1 || got[0] != "Looking it up. Found it." {
			t.Errorf("the thread shows %q", got)
		}
		if n, m := len(h.fake.Sent()), len(h.fake.Edits()); n+m != 0 {
			t.Errorf("%d sends and %d edits, want none", n, m)
		}
		checkStreamCalls(t, s)
	})
}

// TestNativeStatusShower: an adapter that can show statuses beside its
// stream (a terminal) is given each new one instead of a typing indicator,
// before the stream starts too, and only after the text written before it.
func TestNativeStatusShower(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		shown := &statusLog{}
		h, s := newStreamDL(t, capsEvery(time.Second), bottest.Config{}, streamOpts{shower: shown},
			func(c *outbound.DeliveryConfig) { c.TypingEvery = -1 })
		ctx := t.Context()
		w := h.begin(t, ctx, "k1")
		for i, st := range []struct {
			do      func()
			want    []string
			streams int
		}{
			{func() { w.Progress(ctx, "running memory…") }, []string{`running memory… after ""`}, 0},
			{func() { w.Progress(ctx, "running memory…") }, []string{`running memory… after ""`}, 0}, // the same: nothing new
			// Text and a status set before the pump gets to them: the text
			// is appended first.
			{func() {
				w.Delta(ctx, "Let me")
				w.Delta(ctx, " check.")
				w.Progress(ctx, "running shell…")
			}, []string{`running memory… after ""`, `running shell… after "Let me check."`}, 1},
		} {
			st.do()
			time.Sleep(3 * time.Second)
			if got := shown.entries(); !slices.Equal(got, st.want) {
				t.Errorf("step %d: shown %q, want %q", i, got, st.want)
			}
			if n := streamCalls(s, bottest.OpStartStream); n != st.streams {
				t.Errorf("step %d: %d streams started, want %d", i, n, st.streams)
			}
		}
		if n := len(h.fake.Typings()); n != 1 {
			t.Errorf("%d typing indicators, want only the one at Begin", n)
		}
		if err := w.Finish(ctx, "Let me check. Done."); err != nil {
			t.Fatal(err)
		}
		if got := h.texts(); len(got) != 1 || got[0] != "Let me check. Done." {
			t.Errorf("the thread shows %q", got)
		}
		checkStreamCalls(t, s)
	})
}
