package bottest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
)

var (
	chat1 = chat.Thread{Platform: "fake", Space: "W1", Chat: "C1", ID: "r"}
	chat2 = chat.Thread{Platform: "fake", Space: "W1", Chat: "C2", ID: "r"}
)

func unlimited() bottest.Config {
	return bottest.Config{LimitEvery: -1}
}

func TestSendEditAndQueries(t *testing.T) {
	ctx := t.Context()
	a := bottest.New(unlimited())
	ref, err := a.Send(ctx, chat1, chat.Out{Text: "…", ReplyTo: "m1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(ctx, chat2, chat.Out{Text: "elsewhere"}); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"Hello", "Hello", "Hello, world"} {
		if err := a.Edit(ctx, ref, chat.Out{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	msgs := a.Messages(chat1)
	if len(msgs) != 1 || msgs[0].Text != "Hello, world" || msgs[0].Edits != 3 || msgs[0].ReplyTo != "m1" {
		t.Fatalf("Messages = %+v", msgs)
	}
	edits := a.Edits()
	if len(edits) != 3 || edits[0].NoOp || !edits[1].NoOp || edits[2].NoOp {
		t.Errorf("edits = %+v; want the second marked no-op", edits)
	}
	if n := len(a.Sent()); n != 2 {
		t.Errorf("%d sent, want 2", n)
	}
	if err := a.Edit(ctx, chat.MessageRef{Thread: chat1, ID: "999"}, chat.Out{Text: "x"}); !errors.Is(err, bottest.ErrNotFound) {
		t.Errorf("edit of an unknown message = %v", err)
	}
	if err := a.Edit(ctx, chat.MessageRef{Thread: chat2, ID: ref.ID}, chat.Out{Text: "x"}); !errors.Is(err, bottest.ErrNotFound) {
		t.Errorf("edit of a message through the wrong thread = %v", err)
	}
	if _, err := a.Send(ctx, chat1, chat.Out{}); !errors.Is(err, bottest.ErrEmpty) {
		t.Errorf("empty send = %v", err)
	}
	if err := a.Typing(ctx, chat1); err != nil || len(a.Typings()) != 1 {
		t.Errorf("typing = %v, %d recorded", err, len(a.Typings()))
	}
	if err := a.SendPrivate(ctx, chat1, chat.User{ID: "U1"}, chat.Out{Text: "psst"}); err != nil || len(a.Private()) != 1 {
		t.Errorf("private = %v, %d recorded", err, len(a.Private()))
	}
}

func TestEnforcesMaxLen(t *testing.T) {
	caps := bottest.DefaultCapabilities()
	caps.MaxLen = 10
	caps.Measure = func(s string) int { return len(s) } // bytes, to show Measure is used
	a := bottest.New(bottest.Config{Capabilities: caps, LimitEvery: -1})
	ctx := t.Context()
	if _, err := a.Send(ctx, chat1, chat.Out{Text: "ü12345678"}); err != nil { // 10 bytes
		t.Fatal(err)
	}
	if _, err := a.Send(ctx, chat1, chat.Out{Text: "üü12345678"}); !errors.Is(err, bottest.ErrTooLong) {
		t.Errorf("send of 12 bytes = %v, want ErrTooLong", err)
	}
	ref := a.Sent()[0].Ref
	if err := a.Edit(ctx, ref, chat.Out{Text: strings.Repeat("x", 11)}); !errors.Is(err, bottest.ErrTooLong) {
		t.Errorf("edit of 11 = %v, want ErrTooLong", err)
	}
	if msgs := a.Messages(chat1); len(msgs) != 1 || msgs[0].Text != "ü12345678" {
		t.Errorf("refused calls changed the thread: %+v", msgs)
	}
}

func TestEnforcesRateLimit(t *testing.T) {
	tests := []struct {
		name  string
		scope chat.PaceScope
		// otherChatShares: a call in chat2 draws from chat1's budget.
		otherChatShares bool
	}{
		{"per chat", chat.PacePerChat, false},
		{"per workspace", chat.PacePerWorkspace, true},
		{"global", chat.PaceGlobal, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				caps := bottest.DefaultCapabilities()
				caps.EditScope = tt.scope
				a := bottest.New(bottest.Config{Capabilities: caps}) // 1/s, burst 1
				ctx := t.Context()
				ref, err := a.Send(ctx, chat1, chat.Out{Text: "one"})
				if err != nil {
					t.Fatal(err)
				}
				time.Sleep(300 * time.Millisecond)
				err = a.Edit(ctx, ref, chat.Out{Text: "two"})
				wait, limited := chat.RetryAfter(err)
				if !limited || wait < 700*time.Millisecond || wait > 701*time.Millisecond {
					t.Fatalf("edit 300 ms after a send = %v; want a 429 asking for ~700 ms", err)
				}
				_, err = a.Send(ctx, chat2, chat.Out{Text: "other"})
				if _, limited := chat.RetryAfter(err); limited != tt.otherChatShares {
					t.Errorf("send in another chat = %v; rate limited %v, want %v", err, limited, tt.otherChatShares)
				}
				time.Sleep(wait)
				if err := a.Edit(ctx, ref, chat.Out{Text: "two"}); err != nil {
					t.Errorf("edit after the retry-after = %v", err)
				}
				want := 1
				if tt.otherChatShares {
					want = 2
				}
				if n := a.RateLimited(); n != want {
					t.Errorf("RateLimited() = %d, want %d", n, want)
				}
			})
		})
	}
}

func TestFailNextAndFailFrom(t *testing.T) {
	ctx := t.Context()
	a := bottest.New(unlimited())
	a.FailNext(bottest.OpSend, 2, bottest.ErrServer)
	for i, want := range []error{bottest.ErrServer, bottest.ErrServer, nil} {
		if _, err := a.Send(ctx, chat1, chat.Out{Text: "x"}); !errors.Is(err, want) && err != want {
			t.Errorf("send %d = %v, want %v", i, err, want)
		}
	}
	a.FailFrom(bottest.OpSend, 2, bottest.RateLimited(time.Second))
	for i, limited := range []bool{false, false, true, true} {
		_, err := a.Send(ctx, chat1, chat.Out{Text: "y"})
		if _, got := chat.RetryAfter(err); got != limited {
			t.Errorf("send %d after FailFrom = %v, want rate limited %v", i, err, limited)
		}
	}
	a.ClearFaults()
	if _, err := a.Send(ctx, chat1, chat.Out{Text: "z"}); err != nil {
		t.Errorf("send after ClearFaults = %v", err)
	}
	if n := len(a.Sent()); n != 4 {
		t.Errorf("%d messages created, want 4 (refused calls create nothing)", n)
	}
}

func TestFailRateIsSeeded(t *testing.T) {
	pattern := func(seed uint64) string {
		a := bottest.New(bottest.Config{LimitEvery: -1, Seed: seed})
		a.FailRate(bottest.OpEdit, 0.4, bottest.RateLimited(time.Second))
		ref, _ := a.Send(t.Context(), chat1, chat.Out{Text: "x"})
		var b strings.Builder
		for range 200 {
			if a.Edit(t.Context(), ref, chat.Out{Text: "y"}) != nil {
				b.WriteByte('F')
			} else {
				b.WriteByte('.')
			}
		}
		if n := a.Injected(bottest.OpEdit); n != strings.Count(b.String(), "F") {
			t.Errorf("Injected() = %d, want %d", n, strings.Count(b.String(), "F"))
		}
		return b.String()
	}
	p1, p2 := pattern(7), pattern(7)
	if p1 != p2 {
		t.Error("the same seed gave different failure patterns")
	}
	if n := strings.Count(p1, "F"); n < 50 || n > 110 {
		t.Errorf("%d of 200 edits failed, want about 40 %%", n)
	}
	if pattern(8) == p1 {
		t.Error("different seeds gave the same pattern")
	}
}

func TestFailAfter(t *testing.T) {
	for _, returnRef := range []bool{true, false} {
		a := bottest.New(unlimited())
		a.FailAfter(bottest.OpSend, 1, bottest.ErrServer, returnRef)
		ref, err := a.Send(t.Context(), chat1, chat.Out{Text: "answer"})
		if !errors.Is(err, bottest.ErrServer) {
			t.Fatalf("send = %v, want the injected error", err)
		}
		if (ref.ID != "") != returnRef {
			t.Errorf("returnRef %v: ref = %+v", returnRef, ref)
		}
		if msgs := a.Messages(chat1); len(msgs) != 1 || msgs[0].Text != "answer" {
			t.Errorf("the message should exist despite the error: %+v", msgs)
		}
		if _, err := a.Send(t.Context(), chat1, chat.Out{Text: "answer"}); err != nil {
			t.Fatal(err)
		}
		if d := a.DuplicateFinals(); len(d) != 1 || d[0].Text != "answer" || len(d[0].Refs) != 2 {
			t.Errorf("DuplicateFinals = %+v, want the retried answer", d)
		}
	}
}

func TestCancelledContextCreatesNothing(t *testing.T) {
	a := bottest.New(unlimited())
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := a.Send(ctx, chat1, chat.Out{Text: "x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("send = %v", err)
	}
	if len(a.AllMessages()) != 0 {
		t.Error("a cancelled send created a message")
	}
}

type recorder struct {
	msgs []chat.Message
	acts []chat.Action
	cmds []chat.Command
	err  error
}

func (r *recorder) HandleMessage(_ context.Context, m chat.Message) error {
	r.msgs = append(r.msgs, m)
	return r.err
}

func (r *recorder) HandleAction(_ context.Context, a chat.Action) error {
	r.acts = append(r.acts, a)
	return r.err
}

func (r *recorder) HandleCommand(_ context.Context, c chat.Command) error {
	r.cmds = append(r.cmds, c)
	return r.err
}

func TestInject(t *testing.T) {
	a := bottest.New(unlimited())
	h := &recorder{err: errors.New("handler says no")}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- a.Run(ctx, h) }()
	if err := a.InjectMessage(t.Context(), chat.Message{Key: "k1", Text: "hi"}); err != h.err {
		t.Errorf("InjectMessage = %v, want the handler's error", err)
	}
	a.InjectAction(t.Context(), chat.Action{Key: "k2", Data: "a:1"})
	a.InjectCommand(t.Context(), chat.Command{Key: "k3", Name: "memory"})
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v", err)
	}
	if len(h.msgs) != 1 || h.msgs[0].Text != "hi" || len(h.acts) != 1 || len(h.cmds) != 1 || h.cmds[0].Name != "memory" {
		t.Errorf("handler saw %+v", h)
	}

	// Before Run, injection waits, and gives up with its context.
	b := bottest.New(unlimited())
	short, cancelShort := context.WithCancel(t.Context())
	cancelShort()
	if err := b.InjectMessage(short, chat.Message{}); !errors.Is(err, context.Canceled) {
		t.Errorf("InjectMessage before Run = %v", err)
	}
}

func TestClock(t *testing.T) {
	start := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	c := bottest.NewClock(start)
	woke := make(chan time.Time)
	go func() {
		c.Sleep(t.Context(), 2*time.Second)
		woke <- c.Now()
	}()
	if err := c.WaitSleepers(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Second)
	select {
	case <-woke:
		t.Fatal("woke a second early")
	default:
	}
	c.Advance(time.Second)
	if got := <-woke; !got.Equal(start.Add(2 * time.Second)) {
		t.Errorf("woke at %s", got)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep with a cancelled context = %v", err)
	}
}
