package slack

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

// streamFixture is a channel thread rooted at a person's question, with
// the adapter talking to the fake through the real slack-go client.
type streamFixture struct {
	srv    *slacktest.Server
	ad     *Adapter
	thread chat.Thread
	user   chat.User
}

func newStreamFixture(t *testing.T) *streamFixture {
	t.Helper()
	srv := slacktest.NewServer(slacktest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	ad, err := New(Config{BotToken: srv.BotToken(), AppToken: srv.AppToken(), APIURL: srv.URL + "/"})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv.AddUser("UALICE", "alice")
	srv.AddChannel("CSTREAM", "stream", slacktest.Public)
	root := srv.PostUserMessage("CSTREAM", "UALICE", "a question", "")
	return &streamFixture{
		srv: srv, ad: ad,
		thread: chat.Thread{Platform: "slack", Space: srv.TeamID(), Chat: "CSTREAM", ID: root},
		user:   chat.User{Platform: "slack", ID: "UALICE", Name: "alice"},
	}
}

// botMessages are the bot's messages in the fixture's thread.
func (f *streamFixture) botMessages() []slacktest.Message {
	var out []slacktest.Message
	for _, m := range f.srv.Thread(f.thread.Chat, f.thread.ID) {
		if m.User == f.srv.BotUserID() {
			out = append(out, m)
		}
	}
	return out
}

// only returns the one bot message in the thread.
func (f *streamFixture) only(t *testing.T) slacktest.Message {
	t.Helper()
	ms := f.botMessages()
	if len(ms) != 1 {
		t.Fatalf("bot messages in the thread: %+v, want exactly one", ms)
	}
	return ms[0]
}

func (f *streamFixture) start(t *testing.T) chat.RefStream {
	t.Helper()
	s, err := f.ad.StartStream(t.Context(), f.thread, f.user)
	if err != nil {
		t.Fatalf("StartStream: %v", err)
	}
	rs, ok := s.(chat.RefStream)
	if !ok {
		t.Fatalf("stream %T is not a chat.RefStream", s)
	}
	return rs
}

func TestStreamInChannelThread(t *testing.T) {
	f := newStreamFixture(t)
	ctx := t.Context()
	s := f.start(t)
	m := f.only(t)
	if !m.Streamed || !m.Streaming || m.ThreadTS != f.thread.ID {
		t.Fatalf("after StartStream: %+v, want a streaming message in the thread", m)
	}
	if ref := s.Ref(); ref.ID != m.TS || ref.Thread != f.thread {
		t.Errorf("Ref() = %+v, want ts %s in %v", ref, m.TS, f.thread)
	}
	starts := f.srv.CallsTo("chat.startStream")
	if len(starts) != 1 || starts[0].Params.Get("recipient_user_id") != "UALICE" || starts[0].Params.Get("recipient_team_id") != f.srv.TeamID() {
		t.Errorf("chat.startStream calls: %+v, want one naming the recipient", starts)
	}
	for _, want := range []string{"Hello", "Hello, **world**"} {
		if err := s.Append(ctx, want[len(f.only(t).Visible()):]); err != nil {
			t.Fatalf("Append: %v", err)
		}
		if got := f.only(t).Visible(); got != want {
			t.Errorf("after Append: %q, want %q", got, want)
		}
	}
	final := "Hello, **world**. Done."
	ref, err := s.Finish(ctx, chat.Out{Text: final})
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	m = f.only(t)
	if m.Streaming || m.Visible() != final || ref.ID != m.TS {
		t.Errorf("after Finish: %+v (ref %+v), want stopped showing %q", m, ref, final)
	}
	if n := len(f.srv.CallsTo("chat.update")) + len(f.srv.CallsTo("chat.postMessage")); n != 0 {
		t.Errorf("%d postMessage/update calls, want none: the rest goes with stopStream", n)
	}
	// Finish is final: again is a no-op.
	if ref2, err := s.Finish(ctx, chat.Out{Text: final}); err != nil || ref2 != ref {
		t.Errorf("second Finish = %+v, %v", ref2, err)
	}
	if err := s.Append(ctx, "more"); err == nil {
		t.Error("Append after Finish succeeded")
	}
}

func TestStreamLongDeltaIsSplit(t *testing.T) {
	f := newStreamFixture(t)
	s := f.start(t)
	long := strings.Repeat("é", maxStreamChunk*2+5) // 2 bytes each: split at runes
	if err := s.Append(t.Context(), long); err != nil {
		t.Fatalf("Append: %v", err)
	}
	if got := f.only(t).Visible(); got != long {
		t.Errorf("shows %d runes, want %d", len([]rune(got)), len([]rune(long)))
	}
	if n := len(f.srv.CallsTo("chat.appendStream")); n != 3 {
		t.Errorf("%d appendStream calls, want 3", n)
	}
}

func TestStreamFinishReplacesAfterReset(t *testing.T) {
	f := newStreamFixture(t)
	ctx := t.Context()
	s := f.start(t)
	if err := s.Append(ctx, "A first attempt that went wrong"); err != nil {
		t.Fatal(err)
	}
	final := "The second attempt"
	if _, err := s.Finish(ctx, chat.Out{Text: final}); err != nil {
		t.Fatalf("Finish: %v", err)
	}
	if m := f.only(t); m.Streaming || m.Visible() != final {
		t.Errorf("after Finish: %+v, want %q", m, final)
	}
}

func TestStreamFinishWithButtons(t *testing.T) {
	f := newStreamFixture(t)
	ctx := t.Context()
	s := f.start(t)
	if err := s.Append(ctx, "Run it?"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Finish(ctx, chat.Out{Text: "Run it?", Buttons: []chat.Button{{Label: "Yes", Data: "ok"}}})
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	m := f.only(t)
	if m.Streaming || m.Visible() != "Run it?" || !strings.Contains(string(m.Blocks), `"ok"`) {
		t.Errorf("after Finish: %+v, want the text with its button", m)
	}
}

func TestStreamFinishRetriesAfterRateLimitedUpdate(t *testing.T) {
	f := newStreamFixture(t)
	ctx := t.Context()
	s := f.start(t)
	if err := s.Append(ctx, "draft"); err != nil {
		t.Fatal(err)
	}
	f.srv.FailNextRateLimited("chat.update", 1, 2*time.Second)
	_, err := s.Finish(ctx, chat.Out{Text: "final"})
	if rl, ok := errors.AsType[*chat.RateLimitError](err); !ok || rl.RetryAfter != 2*time.Second {
		t.Fatalf("Finish = %v, want a 2s rate limit", err)
	}
	// The stream is stopped already; the retry only replaces the text.
	if _, err := s.Finish(ctx, chat.Out{Text: "final"}); err != nil {
		t.Fatalf("Finish again: %v", err)
	}
	if m := f.only(t); m.Streaming || m.Visible() != "final" {
		t.Errorf("after Finish: %+v", m)
	}
	if n := len(f.srv.CallsTo("chat.stopStream")); n != 1 {
		t.Errorf("%d stopStream calls, want 1", n)
	}
}

func TestStreamAppendRateLimited(t *testing.T) {
	f := newStreamFixture(t)
	ctx := t.Context()
	s := f.start(t)
	f.srv.FailNextRateLimited("chat.appendStream", 1, 5*time.Second)
	err := s.Append(ctx, "Hello")
	rl, ok := errors.AsType[*chat.RateLimitError](err)
	if !ok || rl.RetryAfter != 5*time.Second {
		t.Fatalf("Append = %v, want *chat.RateLimitError for 5s", err)
	}
	if err := s.Append(ctx, "Hello"); err != nil {
		t.Fatalf("Append again: %v", err)
	}
	if got := f.only(t).Visible(); got != "Hello" {
		t.Errorf("shows %q", got)
	}
}

func TestStreamLongDeltaRateLimitedHalfway(t *testing.T) {
	f := newStreamFixture(t)
	ctx := t.Context()
	s := f.start(t)
	long := strings.Repeat("a", maxStreamChunk) + "tail"
	// The state Append(long) leaves when its first chunk went through and
	// the second was refused: the first is sent and not yet acknowledged.
	if err := s.(*stream).appendChunk(ctx, long[:maxStreamChunk]); err != nil {
		t.Fatal(err)
	}
	// As if Append(long) had failed after its first chunk: the caller
	// repeats the whole delta, and only the tail is sent.
	if err := s.Append(ctx, long); err != nil {
		t.Fatalf("Append: %v", err)
	}
	if got := f.only(t).Visible(); got != long {
		t.Errorf("shows %d chars, want %d (no chunk twice)", len(got), len(long))
	}
}

func TestStreamStartFailures(t *testing.T) {
	f := newStreamFixture(t)
	ctx := t.Context()
	for _, code := range []string{"missing_scope", "unknown_method", "user_not_found"} {
		f.srv.SetStreamingError(code)
		s, err := f.ad.StartStream(ctx, f.thread, f.user)
		if err == nil || s != nil {
			t.Fatalf("%s: StartStream = %v, %v; want an error", code, s, err)
		}
		if _, limited := chat.RetryAfter(err); limited {
			t.Errorf("%s: %v is a rate limit; delivery would retry instead of falling back", code, err)
		}
		if _, isScope := errors.AsType[*ScopeError](err); isScope != (code == "missing_scope") {
			t.Errorf("%s: %v (%T), *ScopeError %v", code, err, err, isScope)
		}
	}
	f.srv.SetStreamingError("")

	// A DM's main view has no thread: no call, an error to fall back on.
	dm := chat.Thread{Platform: "slack", Space: f.srv.TeamID(), Chat: "DUALICE"}
	if _, err := f.ad.StartStream(ctx, dm, f.user); !errors.Is(err, ErrStreamNeedsThread) {
		t.Errorf("DM without thread: %v", err)
	}
	// In a DM thread no recipient is needed.
	f.srv.AddChannel("DUALICE", "DUALICE", slacktest.IM)
	dm.ID = f.srv.PostUserMessage("DUALICE", "UALICE", "hi", "")
	if _, err := f.ad.StartStream(ctx, dm, chat.User{}); err != nil {
		t.Errorf("DM thread: %v", err)
	}
	// In a channel, a missing recipient fails before any call.
	calls := len(f.srv.CallsTo("chat.startStream"))
	if _, err := f.ad.StartStream(ctx, f.thread, chat.User{}); err == nil {
		t.Error("channel stream without a recipient started")
	}
	if got := len(f.srv.CallsTo("chat.startStream")); got != calls {
		t.Errorf("%d calls made for a stream without recipient", got-calls)
	}
	f.srv.FailNextRateLimited("chat.startStream", 1, 3*time.Second)
	_, err := f.ad.StartStream(ctx, f.thread, f.user)
	if rl, ok := errors.AsType[*chat.RateLimitError](err); !ok || rl.RetryAfter != 3*time.Second {
		t.Errorf("429 on start: %v", err)
	}
}

func TestCloseStream(t *testing.T) {
	f := newStreamFixture(t)
	ctx := t.Context()
	s := f.start(t)
	if err := s.Append(ctx, "partial"); err != nil {
		t.Fatal(err)
	}
	ref := s.Ref()
	for i := range 2 {
		if err := f.ad.CloseStream(ctx, ref); err != nil {
			t.Fatalf("CloseStream #%d: %v", i+1, err)
		}
		if m := f.only(t); m.Streaming || m.Visible() != "partial" {
			t.Errorf("after CloseStream: %+v", m)
		}
	}
	// The message can be edited now.
	if err := f.ad.Edit(ctx, ref, chat.Out{Text: "edited"}); err != nil {
		t.Errorf("Edit after CloseStream: %v", err)
	}
	if err := f.ad.CloseStream(ctx, chat.MessageRef{Thread: f.thread, ID: "1.2"}); err == nil {
		t.Error("CloseStream of an unknown message succeeded")
	}
}

func TestDeliveryStreamsNatively(t *testing.T) {
	tests := []struct {
		name      string
		streamErr string
	}{
		{"native", ""},
		{"fallback", "missing_scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newStreamFixture(t)
			f.srv.SetStreamingError(tt.streamErr)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			d, err := outbound.NewDelivery(outbound.DeliveryConfig{Adapter: f.ad, Outbox: &bottest.Outbox{}})
			if err != nil {
				t.Fatal(err)
			}
			w, err := d.Begin(ctx, "slack:in:1", "session-1", f.thread, f.user, "")
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Delta(ctx, "Hello"); err != nil {
				t.Fatal(err)
			}
			// Wait until the first text shows (streamed or posted), so
			// that the answer takes the path under test.
			err = f.srv.WaitFor(ctx, func() bool {
				ms := f.botMessages()
				return len(ms) == 1 && ms[0].Visible() == "Hello"
			})
			if err != nil {
				t.Fatalf("the first text never showed: %v; messages %+v", err, f.botMessages())
			}
			if err := w.Delta(ctx, " world"); err != nil {
				t.Fatal(err)
			}
			const final = "Hello world, and goodbye."
			if err := w.Finish(ctx, final); err != nil {
				t.Fatalf("Finish: %v", err)
			}
			m := f.only(t)
			if m.Visible() != final || m.Streaming {
				t.Errorf("the thread shows %+v, want %q", m, final)
			}
			posts, updates := len(f.srv.CallsTo("chat.postMessage")), len(f.srv.CallsTo("chat.update"))
			if tt.streamErr == "" {
				if !m.Streamed || posts != 0 || updates != 0 {
					t.Errorf("streamed %v, %d posts, %d updates; want one native stream and no post or update", m.Streamed, posts, updates)
				}
				return
			}
			if m.Streamed || posts != 1 || updates < 1 {
				t.Errorf("streamed %v, %d posts, %d updates; want postMessage then update", m.Streamed, posts, updates)
			}
		})
	}
}
