package telegram

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/chat"
)

const offsetKey = "telegram:1000:offset"

// dm is a private message from alice, numbered n.
func dm(n int) string {
	return fmt.Sprintf(`{"message":{"message_id":%d,"from":%s,"chat":%s,"date":1,"text":"hello %d"}}`, n, alice, dmChat, n)
}

func keys(msgs []chat.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Key)
	}
	return out
}

// offsets lists the offset parameter of every getUpdates call.
func offsets(s *stubAPI) []string {
	var out []string
	for _, c := range s.callsTo("getUpdates") {
		out = append(out, c.Params.Get("offset"))
	}
	return out
}

func TestPollSavesOffsetAfterHandlerAndRetries(t *testing.T) {
	s := newStub(t)
	st := newMemState()
	a, sl := newTestAdapter(t, s, st)
	s.push(dm(1))
	s.push(dm(2))
	rec := newRecorder()
	rec.failMessages = 1
	var savedWhenHandled []string
	rec.onMessage = func(chat.Message) { savedWhenHandled = append(savedWhenHandled, st.get(offsetKey)) }
	running(t, a, rec)

	s.waitFor(t, "a poll confirming both updates", func() bool { return slices.Contains(offsets(s), "3") })
	if diff := cmp.Diff([]string{"telegram:11:1", "telegram:11:2"}, keys(rec.messages())); diff != "" {
		t.Errorf("handled (-want +got):\n%s", diff)
	}
	// Update 1 failed, then was handed over again before anything was
	// saved; update 2 came once update 1's offset was saved.
	if diff := cmp.Diff([]string{"", "", "2"}, savedWhenHandled); diff != "" {
		t.Errorf("saved offset when the handler ran (-want +got):\n%s", diff)
	}
	if got := st.get(offsetKey); got != "3" {
		t.Errorf("saved offset %q, want 3", got)
	}
	if got := offsets(s)[:2]; !slices.Equal(got, []string{"", ""}) {
		t.Errorf("first polls had offsets %q; the failed update must be fetched again", got)
	}
	if d := sl.all(); len(d) != 1 || d[0] <= 0 || d[0] > backoffMin {
		t.Errorf("waits %v, want one backoff after the failed update", d)
	}
}

func TestPollErrorsWait(t *testing.T) {
	s := newStub(t)
	a, sl := newTestAdapter(t, s, newMemState())
	s.script("getUpdates",
		stubReply{Code: 429, Desc: "Too Many Requests: retry after 7", RetryAfter: 7},
		stubReply{Code: 409, Desc: "Conflict: terminated by other getUpdates request"},
		stubReply{Code: 502, Desc: "Bad Gateway"},
		stubReply{Result: []string{"not an update"}}, // skipped: no update_id
	)
	s.push(dm(1))
	rec := newRecorder()
	running(t, a, rec)
	rec.waitFor(t, "the update after the errors", func() bool { return len(rec.messages()) == 1 })

	d := sl.all()
	if len(d) != 3 {
		t.Fatalf("waits %v, want 3", d)
	}
	if d[0] != 7*time.Second {
		t.Errorf("after a 429 waited %v, want its retry_after 7s", d[0])
	}
	// Jittered doubling: failure n waits between half and all of 2^n s.
	for i, w := range d[1:] {
		full := backoffMin << (i + 1)
		if w < full/2 || w > full {
			t.Errorf("wait %d = %v, want within [%v, %v]", i+2, w, full/2, full)
		}
	}
}

func TestPollStopsMidPoll(t *testing.T) {
	s := newStub(t)
	a, _ := newTestAdapter(t, s, newMemState(), func(c *Config) { c.PollTimeout = time.Hour })
	stop := running(t, a, newRecorder())
	s.waitFor(t, "a long poll", func() bool { return len(s.callsTo("getUpdates")) == 1 })
	done := make(chan error, 1)
	go func() { done <- stop() }()
	// Far below the poll's hour: only a poll bound to ctx returns in time.
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run returned %v after cancel, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return promptly when cancelled mid-poll")
	}
}

func TestRestartResumesFromSavedOffset(t *testing.T) {
	s := newStub(t)
	st := newMemState()
	first, _ := newTestAdapter(t, s, st)
	s.push(dm(1))
	s.push(dm(2))
	rec1 := newRecorder()
	stop := running(t, first, rec1)
	rec1.waitFor(t, "two messages", func() bool { return len(rec1.messages()) == 2 })
	s.waitFor(t, "the offset saved", func() bool { return st.get(offsetKey) == "3" })
	if err := stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}

	s.push(dm(3))
	polls := len(s.callsTo("getUpdates"))
	second, _ := newTestAdapter(t, s, st)
	rec2 := newRecorder()
	running(t, second, rec2)
	rec2.waitFor(t, "the third message", func() bool { return len(rec2.messages()) >= 1 })
	if got := s.callsTo("getUpdates")[polls].Params.Get("offset"); got != "3" {
		t.Errorf("the restarted adapter polled from offset %q, want 3", got)
	}
	if diff := cmp.Diff([]string{"telegram:11:3"}, keys(rec2.messages())); diff != "" {
		t.Errorf("after the restart (-want +got):\n%s", diff)
	}
}

func TestRunStartup(t *testing.T) {
	t.Run("registers commands and deletes the webhook", func(t *testing.T) {
		s := newStub(t)
		a, _ := newTestAdapter(t, s, newMemState())
		running(t, a, newRecorder())
		// The menu is registered beside polling, not before it.
		s.waitFor(t, "a poll and the menu", func() bool {
			return len(s.callsTo("getUpdates")) > 0 && len(s.callsTo("setMyCommands")) > 0
		})
		cmds := s.callsTo("setMyCommands")
		if len(cmds) != 1 || !strings.Contains(cmds[0].Params.Get("commands"), `"command":"memory"`) {
			t.Errorf("setMyCommands calls %v", cmds)
		}
		if dw := s.callsTo("deleteWebhook"); len(dw) != 1 || dw[0].Params.Get("drop_pending_updates") == "true" {
			t.Errorf("deleteWebhook calls %v, want one keeping pending updates", dw)
		}
		p := s.callsTo("getUpdates")[0].Params
		if p.Get("allowed_updates") != `["message","callback_query"]` || p.Get("timeout") != "1" {
			t.Errorf("getUpdates params %v", p)
		}
	})
	t.Run("who it is and the webhook asked at once, polling only after the webhook", func(t *testing.T) {
		s := newStub(t)
		a, _ := newTestAdapter(t, s, newMemState())
		releaseMe := s.gate("getMe")
		releaseHook := s.gate("deleteWebhook")
		defer releaseMe()
		defer releaseHook()
		running(t, a, newRecorder())
		// getMe is not answered yet, and deleteWebhook went out anyway.
		s.waitFor(t, "getMe and deleteWebhook in flight together", func() bool {
			return len(s.callsTo("getMe")) == 1 && len(s.callsTo("deleteWebhook")) == 1
		})
		releaseMe()
		s.waitFor(t, "the menu, once getMe answered", func() bool { return len(s.callsTo("setMyCommands")) > 0 })
		if n := len(s.callsTo("getUpdates")); n != 0 {
			t.Fatalf("%d polls while deleteWebhook was unanswered", n)
		}
		releaseHook()
		s.waitFor(t, "a poll", func() bool { return len(s.callsTo("getUpdates")) > 0 })
	})
	t.Run("Prepare asks before Run, and Run asks nothing again", func(t *testing.T) {
		s := newStub(t)
		a, _ := newTestAdapter(t, s, newMemState())
		a.Prepare(t.Context())
		// Both answered before Run: Run polls without a round trip first.
		s.waitFor(t, "getMe and deleteWebhook answered", func() bool {
			return len(s.callsTo("getMe")) == 1 && len(s.callsTo("deleteWebhook")) == 1
		})
		releaseMe := s.gate("getMe")
		releaseHook := s.gate("deleteWebhook")
		defer releaseMe()
		defer releaseHook()
		running(t, a, newRecorder())
		s.waitFor(t, "a poll, with getMe and deleteWebhook held", func() bool { return len(s.callsTo("getUpdates")) > 0 })
		if me, hooks := len(s.callsTo("getMe")), len(s.callsTo("deleteWebhook")); me != 1 || hooks != 1 {
			t.Errorf("getMe called %d times and deleteWebhook %d: Run asked again what Prepare had", me, hooks)
		}
	})
	t.Run("Run waits for what Prepare has in flight", func(t *testing.T) {
		s := newStub(t)
		a, _ := newTestAdapter(t, s, newMemState())
		releaseHook := s.gate("deleteWebhook")
		defer releaseHook()
		a.Prepare(t.Context())
		running(t, a, newRecorder())
		s.waitFor(t, "the menu, once getMe answered", func() bool { return len(s.callsTo("setMyCommands")) > 0 })
		if n := len(s.callsTo("getUpdates")); n != 0 {
			t.Fatalf("%d polls while Prepare's deleteWebhook was unanswered", n)
		}
		releaseHook()
		s.waitFor(t, "a poll", func() bool { return len(s.callsTo("getUpdates")) > 0 })
		if hooks := len(s.callsTo("deleteWebhook")); hooks != 1 {
			t.Errorf("deleteWebhook called %d times, want Prepare's alone", hooks)
		}
	})
	t.Run("a token refused at Prepare is reported by Run", func(t *testing.T) {
		s := newStub(t)
		a, _ := newTestAdapter(t, s, newMemState())
		s.script("getMe", stubReply{Code: 401, Desc: "Unauthorized"}, stubReply{Code: 401, Desc: "Unauthorized"})
		a.Prepare(t.Context())
		s.waitFor(t, "Prepare's getMe refused", func() bool { return len(s.callsTo("getMe")) == 1 })
		if err := a.Run(t.Context(), newRecorder()); !errors.Is(err, ErrUnauthorized) {
			t.Errorf("Run = %v, want ErrUnauthorized", err)
		}
		if n := len(s.callsTo("getUpdates")); n != 0 {
			t.Errorf("%d polls with a refused token", n)
		}
	})
	t.Run("a refused token ends Run", func(t *testing.T) {
		s := newStub(t)
		a, sl := newTestAdapter(t, s, newMemState())
		s.script("getMe", stubReply{Code: 401, Desc: "Unauthorized"})
		err := a.Run(t.Context(), newRecorder())
		if !errors.Is(err, ErrUnauthorized) {
			t.Errorf("Run = %v, want ErrUnauthorized", err)
		}
		if len(sl.all()) != 0 || len(s.callsTo("getUpdates")) != 0 {
			t.Error("Run retried or polled with a refused token")
		}
	})
	t.Run("getMe is retried while Telegram is down", func(t *testing.T) {
		s := newStub(t)
		a, sl := newTestAdapter(t, s, newMemState())
		s.script("getMe", stubReply{Code: 502, Desc: "Bad Gateway"}, stubReply{Code: 500, Desc: "Internal Server Error"})
		running(t, a, newRecorder())
		s.waitFor(t, "a poll", func() bool { return len(s.callsTo("getUpdates")) > 0 })
		if n := len(s.callsTo("getMe")); n != 3 || len(sl.all()) != 2 {
			t.Errorf("getMe called %d times with waits %v; want 3 calls, 2 waits", n, sl.all())
		}
	})
	t.Run("a failing command menu is not fatal", func(t *testing.T) {
		s := newStub(t)
		a, _ := newTestAdapter(t, s, newMemState())
		s.script("setMyCommands", stubReply{Code: 400, Desc: "Bad Request: BOT_COMMAND_INVALID"})
		running(t, a, newRecorder())
		s.waitFor(t, "a poll", func() bool { return len(s.callsTo("getUpdates")) > 0 })
	})
}
