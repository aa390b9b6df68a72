package outbound_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

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
				if rec.Status != outbound.ReplyDelivered || len(rec.Refs) != 1 || rec.Refs[0] != started[0].Ref.ID || rec.Text != want {
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
			if n := h.arrivals()[m.Text]; i > 0 && n != 1 {
				t.Errorf("part %d's text reached its message %d times, want once", i+1, n)
			}
		}
		rec, _, _ := h.box.Reply(ctx, "k1")
		if rec.Status != outbound.ReplyDelivered || len(rec.Refs) != 3 || rec.Refs[0] != stream.ID || rec.Text != strings.Join(h.texts(), "\n\n") {
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
		in := func(space, chatID string) chat.Thread {
			return chat.Thread{Platform: "fake", Space: space, Chat: chatID, ID: "root"}
		}
		type step struct {
			name     string
			thread   chat.Thread
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
			{"W2, a conversation that cannot stream: send+edit", in("W2", "C4"), fmt.Errorf("needs a thread: %w", chat.ErrStreamNotHere), 1, false},
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
				if rec.Status != outbound.ReplyDelivered || len(rec.Refs) != len(h.texts()) || rec.Refs[0] != s.Started()[0].Ref.ID {
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
		between  func(ctx context.Context, w *outbound.ReplyWriter)
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
		}, func(ctx context.Context, w *outbound.ReplyWriter) {
			w.Progress(ctx, "running shell…")
			time.Sleep(2 * time.Minute)
		}, 0},
		{"stream expired, no closer", streamOpts{noCloser: true}, func(s *bottest.Streaming) {
			s.ExpireStreamsAfter(time.Minute)
		}, func(ctx context.Context, w *outbound.ReplyWriter) {
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
				if rec.Status != outbound.ReplyDelivered || len(rec.Refs) != 1 || rec.Refs[0] != stream.ID {
					t.Errorf("record %+v", rec)
				}
				h.checkPlatform(t)
			})
		})
	}
}
