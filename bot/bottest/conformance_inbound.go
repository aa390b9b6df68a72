package bottest

import (
	"errors"
	"testing"

	"github.com/parleybot/parley/chat"
)

// checkInbound: messages arrive normalized; the router gates, dedupes and
// routes on these fields alone. It is long as a suite is: a list of
// subtests sharing one harness.
func checkInbound(t *testing.T, newHarness func(*testing.T) Harness) {
	h := newHarness(t)
	a := h.Adapter()
	ctx := confContext(t)
	run := startConfRun(t, a)
	platform := a.Platform()
	alice, bob, other := h.User("alice"), h.User("bob"), h.User("helperbot")
	dm := h.Thread(DirectThread, alice)
	group := h.Thread(GroupThread, alice)

	keys := map[string]string{} // key → the event that had it

	// write has the platform deliver spec.
	write := func(t *testing.T, spec MessageSpec) string {
		t.Helper()
		id, err := h.UserMessage(ctx, spec)
		if errors.Is(err, ErrUnsupported) {
			t.Skipf("the platform never delivers this: %v", err)
		}
		if err != nil {
			t.Fatalf("UserMessage: %v", err)
		}
		return id
	}
	// deliver writes spec, waits for it to reach the handler (by its token
	// word) and checks what every normalized message must have.
	deliver := func(t *testing.T, token string, spec MessageSpec) chat.Message {
		t.Helper()
		id := write(t, spec)
		m, err := run.waitMessage(ctx, token)
		if err != nil {
			t.Fatalf("message %q never reached the handler: %v", spec.Text, err)
		}
		if m.Key == "" {
			t.Error("Key is empty")
		} else if prev, ok := keys[m.Key]; ok {
			t.Errorf("Key %q is also the key of %s: distinct events need distinct keys", m.Key, prev)
		} else {
			keys[m.Key] = token
		}
		if m.ID == "" || (id != "" && m.ID != id) {
			t.Errorf("ID = %q, want the platform's id %q", m.ID, id)
		}
		if m.Thread != spec.Thread {
			t.Errorf("Thread = %v, want the conversation it was written in, %v", m.Thread, spec.Thread)
		}
		if m.User.Platform != platform || m.User.ID != spec.From.ID {
			t.Errorf("User = %+v, want %q on %q", m.User, spec.From.ID, platform)
		}
		if got, want := collapseSpace(m.Text), collapseSpace(spec.Text); got != want {
			t.Errorf("Text = %q, want %q (the bot's own mention removed)", m.Text, spec.Text)
		}
		return m
	}

	t.Run("direct", func(t *testing.T) {
		m := deliver(t, "tokdirect", MessageSpec{Thread: dm, From: alice, Text: "hello from a direct chat tokdirect"})
		if !m.Direct || m.FromBot {
			t.Errorf("Direct = %v, FromBot = %v; want true, false", m.Direct, m.FromBot)
		}
	})
	t.Run("mention in a group", func(t *testing.T) {
		m := deliver(t, "tokmention", MessageSpec{Thread: group, From: bob, Text: "please summarize this tokmention", Mention: true})
		if !m.Mentioned || m.Direct || m.FromBot {
			t.Errorf("Mentioned = %v, Direct = %v, FromBot = %v; want true, false, false", m.Mentioned, m.Direct, m.FromBot)
		}
	})
	t.Run("group message without mention", func(t *testing.T) {
		m := deliver(t, "tokplain", MessageSpec{Thread: group, From: bob, Text: "just chatting here tokplain"})
		if m.Mentioned || m.Direct || m.FromBot {
			t.Errorf("Mentioned = %v, Direct = %v, FromBot = %v; want all false", m.Mentioned, m.Direct, m.FromBot)
		}
	})
	// A bot's message may be dropped by the adapter or flagged, never
	// passed on as a person's: the router would answer it, and two bots
	// could answer each other forever. Dropped leaves nothing to wait for,
	// so a later message is the barrier and the check runs once Run has
	// stopped.
	botOK := t.Run("from another bot", func(t *testing.T) {
		write(t, MessageSpec{Thread: group, From: other, Text: "automated notice tokbot", FromBot: true})
		deliver(t, "tokbotafter", MessageSpec{Thread: group, From: bob, Text: "after the bot tokbotafter"})
	})
	redelivered := t.Run("same event twice", func(t *testing.T) {
		deliver(t, "toktwice", MessageSpec{Thread: group, From: bob, Text: "one event twice toktwice", Mention: true, Twice: true})
		// The second copy may come after the first or not at all (an
		// adapter may drop it): a later message is the barrier, and the
		// keys are compared once Run has stopped.
		deliver(t, "tokafter", MessageSpec{Thread: group, From: bob, Text: "after the duplicate tokafter"})
	})
	ownOK := t.Run("own messages", func(t *testing.T) {
		ref, err := a.Send(ctx, group, chat.Out{Text: "my own words tokown"})
		if err != nil {
			t.Fatalf("Send: %v", noLimits(err))
		}
		if err := a.Edit(ctx, ref, chat.Out{Text: "my own words tokown edited"}); err != nil {
			t.Fatalf("Edit: %v", noLimits(err))
		}
		// The platform echoes the post and edit before this message;
		// the check of what came through runs once Run has stopped.
		deliver(t, "tokbarrier", MessageSpec{Thread: group, From: bob, Text: "after the bot spoke tokbarrier"})
	})

	// Once Run has returned the adapter has handed over all it received
	// (a handler called after Run returned would race the shutdown).
	run.stop(t)
	if redelivered {
		copies := run.messages("toktwice")
		if len(copies) > 2 {
			t.Errorf("one event delivered twice reached the handler %d times", len(copies))
		}
		for _, m := range copies[min(1, len(copies)):] {
			if m.Key != copies[0].Key {
				t.Errorf("a redelivered event got Key %q, the first delivery %q: the router would answer twice", m.Key, copies[0].Key)
			}
		}
	}
	if botOK {
		for _, m := range run.messages("tokbot") {
			if !m.FromBot {
				t.Errorf("another bot's message came through as %+v, not flagged FromBot", m)
			}
		}
	}
	if ownOK {
		for _, m := range run.messages("tokown") {
			if !m.FromBot {
				t.Errorf("the bot's own message came back as %+v, not flagged FromBot: the bot would answer itself", m)
			}
		}
	}
}
