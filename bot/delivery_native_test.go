package bot_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/bottest"
)

// streamOpts choose what the delivery sees of the streaming fake.
type streamOpts struct {
	noRef    bool // streams tell their ref only when they finish (no bot.RefStream)
	noCloser bool // the adapter is no bot.StreamCloser
}

// newStreamDL is newDL on the streaming fake.
func newStreamDL(t testing.TB, caps bot.Capabilities, fakeCfg bottest.Config, o streamOpts, mod func(*bot.DeliveryConfig)) (*dl, *bottest.Streaming) {
	t.Helper()
	fakeCfg.Capabilities = caps
	s := bottest.NewStreaming(fakeCfg)
	wrap := func(rf *refsFirst) bot.Adapter {
		sa := &streamingAdapter{refsFirst: rf, s: s, noRef: o.noRef}
		if o.noCloser {
			return sa
		}
		return closingAdapter{sa}
	}
	return newDLOn(t, s.Adapter, s, wrap, mod), s
}

// streamingAdapter extends refsFirst to native streams: a stream's ref,
// once the delivery can know it, must be in the outbox before the next
// call.
type streamingAdapter struct {
	*refsFirst
	s     *bottest.Streaming
	noRef bool
}

func (a *streamingAdapter) StartStream(ctx context.Context, t bot.Thread, u bot.User) (bot.Stream, error) {
	a.check("StartStream")
	st, err := a.s.StartStream(ctx, t, u)
	if err != nil {
		return nil, err
	}
	cs := &checkedStream{a: a.refsFirst, s: st}
	if a.noRef {
		return cs, nil
	}
	a.remember(st.(bot.RefStream).Ref().ID)
	return checkedRefStream{cs}, nil
}

type checkedStream struct {
	a *refsFirst
	s bot.Stream
}

func (c *checkedStream) Append(ctx context.Context, delta string) error {
	c.a.check("Append")
	return c.s.Append(ctx, delta)
}

func (c *checkedStream) Finish(ctx context.Context, final bot.Out) (bot.MessageRef, error) {
	c.a.check("Finish")
	ref, err := c.s.Finish(ctx, final)
	if ref.ID != "" {
		c.a.remember(ref.ID)
	}
	return ref, err
}

type checkedRefStream struct{ *checkedStream }

func (c checkedRefStream) Ref() bot.MessageRef { return c.s.(bot.RefStream).Ref() }

type closingAdapter struct{ *streamingAdapter }

func (a closingAdapter) CloseStream(ctx context.Context, ref bot.MessageRef) error {
	a.check("CloseStream")
	return a.s.CloseStream(ctx, ref)
}

// streamCalls counts the calls of op, refused ones included.
func streamCalls(s *bottest.Streaming, op bottest.Op) int {
	n := 0
	for _, c := range s.Calls() {
		if c.Op == op {
			n++
		}
	}
	return n
}

// appended returns the text of the appends that took effect, in order.
func appended(s *bottest.Streaming) string {
	var b strings.Builder
	for _, c := range s.Appends() {
		b.WriteString(c.Out.Text)
	}
	return b.String()
}

// checkStreamCalls fails t if a stream call failed for another reason
// than an injected fault: a refusal for length, an append to an ended
// stream, an edit of a streaming message.
func checkStreamCalls(t testing.TB, s *bottest.Streaming) {
	t.Helper()
	for _, c := range s.Calls() {
		if errors.Is(c.Err, bottest.ErrTooLong) || errors.Is(c.Err, bottest.ErrEmpty) ||
			errors.Is(c.Err, bottest.ErrStreaming) || errors.Is(c.Err, bottest.ErrNotStreaming) {
			t.Errorf("%s of %s at %s: %v", c.Op, c.Ref.ID, c.At.Format(time.TimeOnly), c.Err)
		}
	}
}

// TestNativeStreamFast: a model streaming 500 deltas over 10 s against one
// call per second. The answer goes into one native stream: one
// StartStream, appends coalesced within the budget (and using most of
// it), one Finish with the final, its ref in the outbox before any other
// call (refsFirst), and no Send or Edit at all.
func TestNativeStreamFast(t *testing.T) {
	for _, o := range []streamOpts{{}, {noRef: true}} {
		t.Run(fmt.Sprintf("noRef=%v", o.noRef), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const every = time.Second
				h, s := newStreamDL(t, capsEvery(every), bottest.Config{}, o, nil)
				ctx := t.Context()
				start := time.Now()
				w := h.begin(t, ctx, "k1")
				var final strings.Builder
				for i := range 500 {
					delta := fmt.Sprintf("w%d ", i)
					final.WriteString(delta)
					w.Delta(ctx, delta)
					time.Sleep(20 * time.Millisecond)
				}
				finishAt := time.Now()
				want := strings.TrimSpace(final.String())
				if err := w.Finish(ctx, final.String()); err != nil {
					t.Fatal(err)
				}
				if took := time.Since(finishAt); took > every {
					t.Errorf("Finish took %s, want at most one interval", took)
				}

				started := s.Started()
				if len(started) != 1 || started[0].User != h.user {
					t.Fatalf("started %+v, want one stream for the asker", started)
				}
				if n, m := len(h.fake.Sent()), len(h.fake.Edits()); n+m != 0 {
					t.Errorf("%d sends and %d edits, want none: the answer streams", n, m)
				}
				allowed := int(finishAt.Sub(start)/every) + 1
				used := 1 + len(s.Appends())
				t.Logf("%d of %d allowed calls used while streaming (500 deltas)", used, allowed)
				if used < allowed*8/10 || used > allowed {
					t.Errorf("%d calls while streaming, want between 80%% and 100%% of the %d allowed", used, allowed)
				}
				if got := appended(s); !strings.HasPrefix(want, got) || len(got) < len(want)/2 {
					t.Errorf("the appends make %q, want a good part of the answer", got)
				}
				fin := s.Finished()
				if len(fin) != 1 || fin[0].Out.Text != want {
					t.Errorf("finished %+v, want once with the final answer", fin)
				}
				if got := h.texts(); len(got) != 1 || got[0] != want {
					t.Errorf("the thread shows %q, want the final answer once", got)
				}
				rec, _, _ := h.box.Reply(ctx, "k1")
				if rec.Status != bot.ReplyDelivered || len(rec.Refs) != 1 || rec.Refs[0] != started[0].Ref.ID || rec.Text != want {
					t.Errorf("record %+v; want delivered in the streamed message", rec)
				}
				h.checkPlatform(t)
				checkStreamCalls(t, s)
			})
		})
	}
}

// TestNativeStreamLongFinal: an answer of three times SplitAt streams no
// further than its part 1, the stream finishes with part 1, and parts 2
// and 3 are posted once each as on the send+edit path.
func TestNativeStreamLongFinal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		caps := capsEvery(time.Second)
		caps.MaxLen, caps.SplitAt = 360, 300
		h, s := newStreamDL(t, caps, bottest.Config{}, streamOpts{}, nil)
		ctx := t.Context()
		w := h.begin(t, ctx, "k1")
		final := longAnswer(27, 6, 14) // ~900 characters; a fence spans the first cut
		for line := range strings.Lines(final) {
			w.Delta(ctx, line)
			time.Sleep(200 * time.Millisecond)
		}
		if err := w.Finish(ctx, final); err != nil {
			t.Fatal(err)
		}

		msgs := h.fake.Messages(h.thread)
		if len(msgs) != 3 {
			t.Fatalf("%d messages, want 3", len(msgs))
		}
		stream := s.Started()[0].Ref
		if msgs[0].Ref != stream {
			t.Errorf("part 1 is in %v, want the stream %v", msgs[0].Ref, stream)
		}
		if fin := s.Finished(); len(fin) != 1 || fin[0].Out.Text != msgs[0].Text {
			t.Errorf("finished %+v, want once with part 1", fin)
		}
		if got := appended(s); !strings.HasPrefix(msgs[0].Text, got) {
			t.Errorf("the stream showed more than part 1:\n%s", got)
		}
		if n := len(h.fake.Sent()); n != 2 {
			t.Errorf("%d sends, want one per continuation", n)
		}
		edits := map[string]int{}
		for _, e := range h.fake.Edits() {
			if e.Ref == stream {
				t.Errorf("the stream's message was edited: %q", e.Out.Text)
			}
			edits[e.Out.Text]++
		}
		for i, m := range msgs {
			if n := len([]rune(m.Text)); n > caps.MaxLen {
				t.Errorf("part %d has %d characters", i+1, n)
			}
			if !fenceBalanced(m.Text) {
				t.Errorf("part %d has an unbalanced fence:\n%s", i+1, m.Text)
			}
			if i > 0 && edits[m.Text] != 1 {
				t.Errorf("part %d was edited in %d times, want once", i+1, edits[m.Text])
			}
		}
		rec, _, _ := h.box.Reply(ctx, "k1")
		if rec.Status != bot.ReplyDelivered || len(rec.Refs) != 3 || rec.Refs[0] != stream.ID || rec.Text != strings.Join(h.texts(), "\n\n") {
			t.Errorf("record %+v", rec)
		}
		h.checkPlatform(t)
		checkStreamCalls(t, s)
	})
}

// TestNativeStartFails: StartStream failing sends the reply down the
// send+edit path and keeps its workspace there for NativeFallback; other
// workspaces still stream; a 429 is waited out, not a reason to fall back.
func TestNativeStartFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, s := newStreamDL(t, capsEvery(time.Second), bottest.Config{}, streamOpts{}, nil)
		ctx := t.Context()
		in := func(space, chat string) bot.Thread {
			return bot.Thread{Platform: "fake", Space: space, Chat: chat, ID: "root"}
		}
		type step struct {
			name     string
			thread   bot.Thread
			fault    error
			tries    int // StartStream calls, refused ones included
			streamed bool
		}
		steps := []step{
			{"first reply in W1: start fails, send+edit", in("W1", "C1"), bottest.ErrStreamUnsupported, 1, false},
			{"second reply in W1: straight to send+edit", in("W1", "C2"), nil, 0, false},
			{"reply in W2: streams", in("W2", "C1"), nil, 1, true},
			{"reply in W2 after a 429: streams", in("W2", "C2"), bottest.RateLimited(2 * time.Second), 2, true},
			{"W2 was not marked by the 429", in("W2", "C3"), nil, 1, true},
			{"W2, a conversation that cannot stream: send+edit", in("W2", "C4"), fmt.Errorf("needs a thread: %w", bot.ErrStreamNotHere), 1, false},
			{"W2 was not marked by it", in("W2", "C5"), nil, 1, true},
		}
		for i, st := range steps {
			if st.fault != nil {
				s.FailNext(bottest.OpStartStream, 1, st.fault)
			}
			before, sent := streamCalls(s, bottest.OpStartStream), len(h.fake.Sent())
			text := fmt.Sprintf("Answer %d.", i)
			w, err := h.d.Begin(ctx, fmt.Sprintf("k%d", i), "s1", st.thread, h.user, "")
			if err != nil {
				t.Fatal(err)
			}
			w.Delta(ctx, text)
			time.Sleep(5 * time.Second)
			if err := w.Finish(ctx, text); err != nil {
				t.Fatal(err)
			}
			if n := streamCalls(s, bottest.OpStartStream) - before; n != st.tries {
				t.Errorf("%s: %d StartStream calls, want %d", st.name, n, st.tries)
			}
			if posted := len(h.fake.Sent()) > sent; posted == st.streamed {
				t.Errorf("%s: posted by Send %v, want %v", st.name, posted, !st.streamed)
			}
			if msgs := h.fake.Messages(st.thread); len(msgs) != 1 || msgs[0].Text != text {
				t.Errorf("%s: the thread shows %+v", st.name, msgs)
			}
		}
		if !strings.Contains(h.logs.String(), "native stream could not start") {
			t.Error("the fallback was not logged")
		}

		// After NativeFallback (10 min by default) W1 tries again.
		time.Sleep(10 * time.Minute)
		before := streamCalls(s, bottest.OpStartStream)
		w, _ := h.d.Begin(ctx, "later", "s1", in("W1", "C9"), h.user, "")
		w.Delta(ctx, "Streams again.")
		time.Sleep(3 * time.Second)
		if err := w.Finish(ctx, "Streams again."); err != nil {
			t.Fatal(err)
		}
		if n := streamCalls(s, bottest.OpStartStream) - before; n != 1 {
			t.Errorf("%d StartStream calls after the fallback period, want 1", n)
		}
		h.checkDuplicates(t)
		h.checkRateLimits(t)
		checkStreamCalls(t, s)
	})
}

// TestNativeAppend429Storm: 40 % of the stream calls are refused with a
// retry-after. The reply still ends as exactly one complete answer in the
// streamed message and its continuations.
func TestNativeAppend429Storm(t *testing.T) {
	tests := []struct {
		name string
		seed uint64
		ops  []bottest.Op
	}{
		{"appends, seed 1", 1, []bottest.Op{bottest.OpAppend}},
		{"appends, seed 2", 2, []bottest.Op{bottest.OpAppend}},
		{"start, appends and finish, seed 3", 3, []bottest.Op{bottest.OpStartStream, bottest.OpAppend, bottest.OpFinish}},
		{"start, appends and finish, seed 4", 4, []bottest.Op{bottest.OpStartStream, bottest.OpAppend, bottest.OpFinish}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				caps := capsEvery(time.Second)
				caps.MaxLen, caps.SplitAt = 400, 300
				h, s := newStreamDL(t, caps, bottest.Config{Seed: tt.seed}, streamOpts{}, nil)
				for _, op := range tt.ops {
					s.FailRate(op, 0.4, bottest.RateLimited(2*time.Second))
				}
				ctx := t.Context()
				w := h.begin(t, ctx, "k1")
				final := stream(ctx, w, 150, 100*time.Millisecond) // ~800 characters: 3 parts
				if err := w.Finish(ctx, final); err != nil {
					t.Fatal(err)
				}
				injected := 0
				for _, op := range tt.ops {
					injected += s.Injected(op)
				}
				if injected == 0 {
					t.Fatal("no 429 was injected")
				}
				if got := strings.Join(h.texts(), "\n"); got != strings.TrimSpace(final) {
					t.Errorf("the thread shows\n%q\nwant the answer once\n%q", got, final)
				}
				if n := len(s.Started()); n != 1 {
					t.Errorf("%d streams, want 1", n)
				}
				if n := len(h.fake.Sent()); n != len(h.texts())-1 {
					t.Errorf("%d sends, want one per continuation", n)
				}
				rec, _, _ := h.box.Reply(ctx, "k1")
				if rec.Status != bot.ReplyDelivered || len(rec.Refs) != len(h.texts()) || rec.Refs[0] != s.Started()[0].Ref.ID {
					t.Errorf("record %+v; want delivered, the stream first", rec)
				}
				h.checkPlatform(t)
				checkStreamCalls(t, s)
			})
		})
	}
}

// TestNativeAppendFails: an append fails mid-stream. The stream is ended
// with what it shows and the reply goes on by edits of the same message;
// the final lands there exactly once.
func TestNativeAppendFails(t *testing.T) {
	tests := []struct {
		name  string
		opts  streamOpts
		setup func(s *bottest.Streaming)
		// between runs between the first and the second half of the
		// answer (a tool run, say).
		between  func(ctx context.Context, w *bot.ReplyWriter)
		finished int // stream Finish calls that took effect
	}{
		{"append error", streamOpts{}, func(s *bottest.Streaming) {
			s.FailFrom(bottest.OpAppend, 2, bottest.ErrServer)
		}, nil, 1},
		{"append error, ref known only at Finish", streamOpts{noRef: true, noCloser: true}, func(s *bottest.Streaming) {
			s.FailFrom(bottest.OpAppend, 2, bottest.ErrServer)
		}, nil, 1},
		{"stream expired during a tool run", streamOpts{}, func(s *bottest.Streaming) {
			s.ExpireStreamsAfter(time.Minute)
		}, func(ctx context.Context, w *bot.ReplyWriter) {
			w.Progress(ctx, "running shell…")
			time.Sleep(2 * time.Minute)
		}, 0},
		{"stream expired, no closer", streamOpts{noCloser: true}, func(s *bottest.Streaming) {
			s.ExpireStreamsAfter(time.Minute)
		}, func(ctx context.Context, w *bot.ReplyWriter) {
			time.Sleep(2 * time.Minute)
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, s := newStreamDL(t, capsEvery(time.Second), bottest.Config{}, tt.opts, nil)
				tt.setup(s)
				ctx := t.Context()
				w := h.begin(t, ctx, "k1")
				first := stream(ctx, w, 30, 100*time.Millisecond)
				time.Sleep(2 * time.Second)
				if tt.between != nil {
					tt.between(ctx, w)
				}
				second := stream(ctx, w, 30, 100*time.Millisecond)
				time.Sleep(3 * time.Second)
				final := strings.TrimSpace(first + second)
				if got := h.texts(); len(got) != 1 || got[0] != final {
					t.Errorf("before Finish the thread shows %q, want the text so far by edits", got)
				}
				if err := w.Finish(ctx, final+"\n\nDone."); err != nil {
					t.Fatal(err)
				}
				if got := h.texts(); len(got) != 1 || got[0] != final+"\n\nDone." {
					t.Errorf("the thread shows %q, want the final once", got)
				}
				stream := s.AllMessages()[0].Ref
				if n := len(s.Started()); n != 1 {
					t.Errorf("%d streams, want 1", n)
				}
				if n := len(s.Finished()); n != tt.finished {
					t.Errorf("%d stream finishes, want %d", n, tt.finished)
				}
				if n := len(h.fake.Sent()); n != 0 {
					t.Errorf("%d sends, want none: the stream's message goes on", n)
				}
				for _, e := range h.fake.Edits() {
					if e.Ref != stream {
						t.Errorf("edit of %v, want only the stream's message", e.Ref)
					}
				}
				rec, _, _ := h.box.Reply(ctx, "k1")
				if rec.Status != bot.ReplyDelivered || len(rec.Refs) != 1 || rec.Refs[0] != stream.ID {
					t.Errorf("record %+v", rec)
				}
				h.checkPlatform(t)
			})
		})
	}
}

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
				if before.Status != bot.ReplyNativeStreaming || len(before.Refs) != 1 || before.Refs[0] != stream.ID {
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
				edits := map[string]int{}
				for _, e := range h.fake.Edits() {
					edits[e.Out.Text]++
				}
				for i, m := range msgs {
					if edits[m.Text] != 1 {
						t.Errorf("part %d was edited in %d times, want once", i+1, edits[m.Text])
					}
				}
				rec, _, _ := h.box.Reply(ctx, "k1")
				if rec.Status != bot.ReplyDelivered || len(rec.Refs) != len(msgs) || rec.Refs[0] != stream.ID {
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
			func(c *bot.DeliveryConfig) { c.TypingEvery = -1 })
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
