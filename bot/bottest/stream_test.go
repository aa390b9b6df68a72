package bottest_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
)

var asker = chat.User{Platform: "fake", ID: "U1", Name: "Ada"}

func startStream(t *testing.T, s *bottest.Streaming, th chat.Thread) (chat.Stream, chat.MessageRef) {
	t.Helper()
	st, err := s.StartStream(t.Context(), th, asker)
	if err != nil {
		t.Fatal(err)
	}
	rs, ok := st.(chat.RefStream)
	if !ok {
		t.Fatal("the fake's stream does not report its ref")
	}
	return st, rs.Ref()
}

// TestStreamingLifecycle: the message grows with each append, cannot be
// edited while it streams, shows the final after Finish, and is an
// ordinary message afterwards.
func TestStreamingLifecycle(t *testing.T) {
	ctx := t.Context()
	s := bottest.NewStreaming(unlimited())
	st, ref := startStream(t, s, chat1)
	if got := s.Started(); len(got) != 1 || got[0].User != asker || got[0].Ref != ref {
		t.Fatalf("Started() = %+v", got)
	}
	for i, d := range []string{"Hello", ", wor", "ld"} {
		if err := st.Append(ctx, d); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	if msgs := s.Messages(chat1); len(msgs) != 1 || msgs[0].Text != "Hello, world" || msgs[0].Ref != ref {
		t.Fatalf("Messages = %+v, want the appended text", msgs)
	}
	if !s.IsStreaming(ref) {
		t.Error("IsStreaming = false for an open stream")
	}
	if err := s.Edit(ctx, ref, chat.Out{Text: "edited"}); !errors.Is(err, bottest.ErrStreaming) {
		t.Errorf("edit while streaming = %v, want ErrStreaming", err)
	}
	if err := st.Append(ctx, ""); !errors.Is(err, bottest.ErrEmpty) {
		t.Errorf("empty append = %v", err)
	}
	got, err := st.Finish(ctx, chat.Out{Text: "Hello, world!"})
	if err != nil || got != ref {
		t.Fatalf("Finish = %v, %v", got, err)
	}
	if msgs := s.Messages(chat1); msgs[0].Text != "Hello, world!" {
		t.Errorf("after Finish the message shows %q", msgs[0].Text)
	}
	if err := st.Append(ctx, "more"); !errors.Is(err, bottest.ErrNotStreaming) {
		t.Errorf("append after Finish = %v, want ErrNotStreaming", err)
	}
	if _, err := st.Finish(ctx, chat.Out{Text: "again"}); !errors.Is(err, bottest.ErrNotStreaming) {
		t.Errorf("second Finish = %v, want ErrNotStreaming", err)
	}
	if err := s.Edit(ctx, ref, chat.Out{Text: "edited"}); err != nil {
		t.Errorf("edit after Finish = %v", err)
	}
	if n, f := len(s.Appends()), len(s.Finished()); n != 3 || f != 1 {
		t.Errorf("%d appends and %d finishes recorded, want 3 and 1", n, f)
	}
}

// TestStreamingCloseAndExpiry: a stream ends by CloseStream, keeping its
// text, or by going idle once expiry is on.
func TestStreamingCloseAndExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := bottest.NewStreaming(unlimited())
		st, ref := startStream(t, s, chat1)
		st.Append(ctx, "partial")
		if err := s.CloseStream(ctx, ref); err != nil {
			t.Fatal(err)
		}
		if err := s.CloseStream(ctx, ref); !errors.Is(err, bottest.ErrNotStreaming) {
			t.Errorf("second close = %v, want ErrNotStreaming", err)
		}
		if msgs := s.Messages(chat1); msgs[0].Text != "partial" || len(s.Closed()) != 1 {
			t.Errorf("after close: %+v, %d closes", msgs, len(s.Closed()))
		}

		s.ExpireStreamsAfter(time.Minute)
		st, ref = startStream(t, s, chat1)
		time.Sleep(59 * time.Second)
		if err := st.Append(ctx, "still"); err != nil {
			t.Fatalf("append within the idle time = %v", err)
		}
		time.Sleep(time.Minute)
		if s.IsStreaming(ref) {
			t.Error("the stream did not expire")
		}
		if err := st.Append(ctx, " here?"); !errors.Is(err, bottest.ErrNotStreaming) {
			t.Errorf("append after expiry = %v, want ErrNotStreaming", err)
		}
		if err := s.Edit(ctx, ref, chat.Out{Text: "edited"}); err != nil {
			t.Errorf("edit after expiry = %v", err)
		}
	})
}

// TestStreamingLimitsAndFaults: streams draw from the platform's rate
// budget, respect MaxLen, and take injected faults.
func TestStreamingLimitsAndFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		caps := bottest.DefaultCapabilities()
		caps.MaxLen = 10
		s := bottest.NewStreaming(bottest.Config{Capabilities: caps}) // 1/s, burst 1

		s.FailNext(bottest.OpStartStream, 1, bottest.ErrStreamUnsupported)
		if _, err := s.StartStream(ctx, chat1, asker); !errors.Is(err, bottest.ErrStreamUnsupported) {
			t.Fatalf("StartStream = %v, want the injected error", err)
		}
		if len(s.AllMessages()) != 0 {
			t.Fatal("a refused StartStream created a message")
		}
		st, _ := startStream(t, s, chat1)
		err := st.Append(ctx, "x")
		if _, limited := chat.RetryAfter(err); !limited {
			t.Fatalf("append right after the start = %v, want a 429 from the shared budget", err)
		}
		time.Sleep(time.Second)
		if err := st.Append(ctx, "0123456789!"); !errors.Is(err, bottest.ErrTooLong) {
			t.Errorf("append past MaxLen = %v, want ErrTooLong", err)
		}
		time.Sleep(time.Second)
		s.FailNext(bottest.OpAppend, 1, bottest.RateLimited(2*time.Second))
		if _, limited := chat.RetryAfter(st.Append(ctx, "a")); !limited {
			t.Error("the injected 429 did not happen")
		}
		s.FailAfter(bottest.OpAppend, 1, bottest.ErrServer, false)
		if err := st.Append(ctx, "b"); !errors.Is(err, bottest.ErrServer) {
			t.Errorf("append = %v, want the error after it landed", err)
		}
		if msgs := s.Messages(chat1); msgs[0].Text != "b" {
			t.Errorf("the message shows %q, want only the append that landed", msgs[0].Text)
		}
		if n := s.RateLimited(); n != 1 {
			t.Errorf("RateLimited() = %d, want 1", n)
		}
	})
}
