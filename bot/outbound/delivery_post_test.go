package outbound_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

// TestShortAnswerIsOneSend: an answer finished before the first frame is
// due (FirstFrameAfter: the budget's interval, at most a second) is one
// message created with its final text the moment Finish is called — no
// placeholder, no edit, no native stream — on a send+edit platform and on
// one that streams natively; one finished later streams first.
func TestShortAnswerIsOneSend(t *testing.T) {
	tests := []struct {
		name    string
		native  bool
		writing time.Duration // from the first delta to Finish
		frames  bool          // something was shown before the final
	}{
		{"send and edit, done at once", false, 0, false},
		{"send and edit, done in 0.9 s", false, 900 * time.Millisecond, false},
		{"send and edit, done in 3 s", false, 3 * time.Second, true},
		{"native, done at once", true, 0, false},
		{"native, done in 0.9 s", true, 900 * time.Millisecond, false},
		{"native, done in 3 s", true, 3 * time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				caps := capsEvery(time.Second)
				var (
					h *dl
					s *bottest.Streaming
				)
				if tt.native {
					h, s = newStreamDL(t, caps, bottest.Config{}, streamOpts{}, nil)
				} else {
					h = newDL(t, caps, bottest.Config{}, nil)
				}
				ctx := t.Context()
				w := h.begin(t, ctx, "k1")
				w.Delta(ctx, "The answer ")
				time.Sleep(tt.writing)
				w.Delta(ctx, "is short.")
				finish := time.Now()
				if err := w.Finish(ctx, "The answer is short."); err != nil {
					t.Fatal(err)
				}
				msgs := h.fake.Messages(h.thread)
				if len(msgs) != 1 || msgs[0].Text != "The answer is short." {
					t.Fatalf("the thread shows %q, want the answer once", h.texts())
				}
				streams := 0
				if s != nil {
					streams = len(s.Started())
				}
				sends, edits := len(h.fake.Sent()), len(h.fake.Edits())
				if shown := streams > 0 || sends+edits > 1; shown != tt.frames {
					t.Errorf("%d sends, %d edits, %d streams: frames shown %v, want %v", sends, edits, streams, shown, tt.frames)
				}
				if !tt.frames && !msgs[0].SentAt.Equal(finish) {
					t.Errorf("the answer was sent %s after Finish, want at once", msgs[0].SentAt.Sub(finish))
				}
				rec, _, _ := h.box.Reply(ctx, "k1")
				if rec.Status != outbound.ReplyDelivered || len(rec.Refs) != 1 {
					t.Errorf("record %+v, want delivered with one ref", rec)
				}
				h.checkPlatform(t)
			})
		})
	}
}

// TestBusyEditBudgetPostsFinalsDirectly: where posts and edits have
// budgets of their own (Slack: chat.postMessage per channel, chat.update
// per workspace) and the edit budget binds, a reply that would start
// streaming shows nothing and posts its final answer directly, in one
// call on its channel's post budget, instead of a placeholder whose final
// edit would queue behind the workspace's.
func TestBusyEditBudgetPostsFinalsDirectly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		caps := capsEvery(1200 * time.Millisecond)
		caps.EditScope, caps.EditBurst = chat.PacePerWorkspace, 3
		caps.PostEvery, caps.PostBurst = time.Second, 3
		h := newDL(t, caps, bottest.Config{LimitEvery: -1}, nil)
		ctx := t.Context()
		// Ten long answers stream at once and keep the workspace's edit
		// budget busy.
		var wg sync.WaitGroup
		for i := range 10 {
			th := h.thread
			th.Chat, th.ID = fmt.Sprintf("busy%d", i), ""
			w, err := h.d.Begin(ctx, fmt.Sprintf("busy%d", i), "s1", th, h.user, "")
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				for j := range 60 {
					w.Delta(ctx, fmt.Sprintf("word%d ", j))
					time.Sleep(500 * time.Millisecond)
				}
				w.Finish(ctx, "")
			})
		}
		time.Sleep(5 * time.Second)
		// A new answer of four seconds in a DM of its own.
		dm := h.thread
		dm.Chat, dm.ID = "D1", ""
		w, err := h.d.Begin(ctx, "dm", "s1", dm, h.user, "")
		if err != nil {
			t.Fatal(err)
		}
		w.Delta(ctx, "Working on it")
		time.Sleep(4 * time.Second)
		finish := time.Now()
		if err := w.Finish(ctx, "Done: the answer."); err != nil {
			t.Fatal(err)
		}
		var sends, edits int
		for _, c := range h.fake.Calls() {
			if c.Thread.Chat == "D1" && c.Applied {
				switch c.Op {
				case bottest.OpSend:
					sends++
				case bottest.OpEdit:
					edits++
				}
			}
		}
		if sends != 1 || edits != 0 {
			t.Errorf("the DM got %d sends and %d edits, want its final posted directly", sends, edits)
		}
		if msgs := h.fake.Messages(dm); len(msgs) != 1 || !msgs[0].SentAt.Equal(finish) {
			t.Errorf("the DM shows %+v, want the answer sent at Finish", msgs)
		}
		wg.Wait()
		h.checkPlatform(t)
	})
}

// TestCrashBetweenPostAndRecord: the process dies after a final part's
// create took effect and before its ref was recorded (the record says
// ReplyPosting). After the restart a platform that finds the message by
// its key (Slack) or returns it for a repeated key (Discord) shows the
// answer once; one with neither (Telegram) shows it twice — the residual
// risk, confined to that window.
func TestCrashBetweenPostAndRecord(t *testing.T) {
	tests := []struct {
		name   string
		fake   bottest.Config
		copies int
	}{
		{"findable (Slack metadata)", bottest.Config{FindsSent: true}, 1},
		{"keyed (Discord nonce)", bottest.Config{KeyedSends: true}, 1},
		{"neither (Telegram)", bottest.Config{}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newDL(t, capsEvery(time.Second), tt.fake, func(c *outbound.DeliveryConfig) { c.FinalDeadline = 100 * time.Millisecond })
				ctx := t.Context()
				// The create takes effect, its answer never arrives, and the
				// deadline passes before a retry: the process is as good as
				// dead.
				h.fake.FailAfter(bottest.OpSend, 1, bottest.ErrServer, false)
				h.fake.FailFrom(bottest.OpSend, 1, bottest.ErrServer)
				w := h.begin(t, ctx, "k1")
				if err := w.Finish(ctx, "The answer."); err == nil {
					t.Fatal("Finish succeeded")
				}
				if rec, _, _ := h.box.Reply(ctx, "k1"); rec.Status != outbound.ReplyFailed || len(rec.Refs) != 0 {
					t.Fatalf("record %+v, want failed without a ref", rec)
				}
				rec, _, _ := h.box.Reply(ctx, "k1")
				rec.Status = outbound.ReplyPosting // as the crash left it: the intent, no result
				if err := h.box.SaveReply(ctx, rec); err != nil {
					t.Fatal(err)
				}

				h.fake.ClearFaults()
				h.d = h.delivery(t, nil)
				w = h.begin(t, ctx, "k1")
				if err := w.Finish(ctx, "The answer."); err != nil {
					t.Fatal(err)
				}
				if n := h.countText("The answer."); n != tt.copies {
					t.Errorf("the answer shows %d times, want %d", n, tt.copies)
				}
				if rec, _, _ := h.box.Reply(ctx, "k1"); rec.Status != outbound.ReplyDelivered || len(rec.Refs) != 1 {
					t.Errorf("record %+v, want delivered with one ref", rec)
				}
			})
		})
	}
}

// TestPostIntentRecordedFirst: a final part's create is recorded as an
// intent (ReplyPosting) before the call, and its ref with the delivered
// status in one save after it.
func TestPostIntentRecordedFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newDL(t, capsEvery(time.Second), bottest.Config{}, nil)
		ctx := t.Context()
		var atSend outbound.OutboxRecord
		h.wrap = func(rf *refsFirst) chat.Adapter {
			return sendHook{refsFirst: rf, before: func() { atSend, _, _ = h.box.Reply(ctx, "k1") }}
		}
		h.d = h.delivery(t, nil)
		w := h.begin(t, ctx, "k1")
		if err := w.Finish(ctx, "The answer."); err != nil {
			t.Fatal(err)
		}
		if atSend.Status != outbound.ReplyPosting || len(atSend.Refs) != 0 {
			t.Errorf("at the send the record was %+v, want the intent", atSend)
		}
		if got := h.fake.Sent(); len(got) != 1 || got[0].Out.Key != "k1#1" {
			t.Errorf("sent %+v, want one create keyed k1#1", got)
		}
		if n := h.box.Saves(); n != 2 {
			t.Errorf("%d saves, want 2: the intent, then the ref with the status", n)
		}
	})
}

// sendHook runs before ahead of every Send.
type sendHook struct {
	*refsFirst
	before func()
}

func (a sendHook) Send(ctx context.Context, t chat.Thread, out chat.Out) (chat.MessageRef, error) {
	a.before()
	return a.refsFirst.Send(ctx, t, out)
}
