package bottest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
)

// The in-memory fake is adapter and platform in one: it stores what the
// core sends as is and hands over events already normalized. Its harness
// therefore normalizes inbound events itself, which keeps the inbound
// checks trivially true; what this test really shows is that the fake's
// outbound side (limits, edits in place, 429s, Run) keeps the contract the
// core's own tests lean on, and that the suite itself runs clean.
func TestConformance(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		bottest.RunConformance(t, func(t *testing.T) bottest.Harness {
			return newMemHarness(bottest.DefaultCapabilities(), "")
		})
	})
	t.Run("no buttons, measured in bytes", func(t *testing.T) {
		caps := bottest.DefaultCapabilities()
		caps.MaxLen, caps.SplitAt = 2000, 1900
		caps.Buttons, caps.Typing = false, false
		// Bytes agree with runes on the suite's plain ASCII, as Measure
		// must.
		caps.Measure = func(s string) int { return len(s) }
		bottest.RunConformance(t, func(t *testing.T) bottest.Harness {
			return newMemHarness(caps, "")
		})
	})
}

// TestConformanceSkips: a skipped check does not run. The mutant breaks
// only the skipped check, so the suite passes.
func TestConformanceSkips(t *testing.T) {
	bottest.RunConformance(t, func(t *testing.T) bottest.Harness {
		return newMemHarness(bottest.DefaultCapabilities(), "truncate")
	}, bottest.Skip{Check: "length limits", Why: "the mutant truncates"})
}

// mutants break the fake in ways real adapters go wrong, each with the
// check (subtest path) that must catch it; only that check runs.
var mutants = map[string]string{
	"truncate":        "length_limits",             // cuts over-long text instead of refusing it
	"edit-posts-new":  "send_and_edit",             // "edits" by posting another message
	"lose-429":        "rate_limit",                // turns a 429 into an opaque error
	"sleep-429":       "rate_limit/send",           // waits out the retry-after inside the call
	"rekey-twice":     "inbound_messages",          // a redelivery gets a new key
	"public-respond":  "buttons",                   // answers the clicker in the open
	"cut-button-data": "buttons",                   // loses the payload's last byte
	"private-to-all":  "private_messages",          // "private" message posted in the thread
	"bot-unflagged":   "inbound_messages",          // another bot's message passes as a person's
	"ping-everyone":   "mass_mentions_neutralized", // a stored message notifies everyone
	"preview-links":   "links_not_previewed",       // the platform fetches a link for a preview
}

const mutantEnv = "BOTTEST_CONFORMANCE_MUTANT"

// TestConformanceCatchesMutants runs the suite against each mutant in a
// child process (a failing suite cannot run inside a passing test) and
// requires the mutant's check to fail: a suite that passes broken
// adapters proves nothing.
func TestConformanceCatchesMutants(t *testing.T) {
	if os.Getenv(mutantEnv) != "" {
		t.Skip("inside a mutant run")
	}
	if testing.Short() {
		t.Skip("runs the test binary once per mutant")
	}
	for name, check := range mutants {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			pattern := "^TestConformanceMutant$"
			for part := range strings.SplitSeq(check, "/") {
				pattern += "/^" + part + "$"
			}
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run="+pattern, "-test.count=1")
			cmd.Env = append(os.Environ(), mutantEnv+"="+name)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed mutant %q:\n%s", name, out)
			}
			if want := "--- FAIL: TestConformanceMutant/" + check; !strings.Contains(string(out), want) {
				t.Errorf("mutant %q did not fail check %s:\n%s", name, check, out)
			}
		})
	}
}

// TestConformanceMutant is the child process of TestConformanceCatchesMutants.
func TestConformanceMutant(t *testing.T) {
	name := os.Getenv(mutantEnv)
	if name == "" {
		t.Skip("run by TestConformanceCatchesMutants")
	}
	if _, ok := mutants[name]; !ok {
		t.Fatalf("unknown mutant %q", name)
	}
	bottest.RunConformance(t, func(t *testing.T) bottest.Harness {
		return newMemHarness(bottest.DefaultCapabilities(), name)
	})
}

// memHarness is a bottest.Harness over the in-memory fake.
type memHarness struct {
	fake   *bottest.Adapter
	ad     chat.Adapter // fake, or a mutant wrapping it
	mutant string

	mu     sync.Mutex
	nextID int
}

func newMemHarness(caps chat.Capabilities, mutant string) *memHarness {
	// The fake's own rate limit is off: the suite provokes 429s only
	// through RateLimitNext.
	fake := bottest.New(bottest.Config{Capabilities: caps, LimitEvery: -1})
	h := &memHarness{fake: fake, ad: fake, mutant: mutant}
	if mutant != "" {
		h.ad = &mutantAdapter{Adapter: fake, mutant: mutant}
	}
	return h
}

func (h *memHarness) Adapter() chat.Adapter { return h.ad }

func (h *memHarness) User(name string) chat.User {
	return chat.User{Platform: h.fake.Platform(), ID: "U-" + name, Name: name}
}

func (h *memHarness) Thread(kind bottest.ThreadKind, with chat.User) chat.Thread {
	if kind == bottest.DirectThread {
		return h.direct(with)
	}
	return chat.Thread{Platform: h.fake.Platform(), Space: "W1", Chat: "C1", ID: "T" + h.newID()}
}

func (h *memHarness) direct(u chat.User) chat.Thread {
	return chat.Thread{Platform: h.fake.Platform(), Chat: "D-" + u.ID}
}

func (h *memHarness) newID() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.nextID++
	return strconv.Itoa(h.nextID)
}

func (h *memHarness) UserMessage(ctx context.Context, spec bottest.MessageSpec) (string, error) {
	id := h.newID()
	m := chat.Message{
		Key: "fake:" + id, ID: id, Thread: spec.Thread, User: spec.From, Text: spec.Text,
		Direct:    spec.Thread == h.direct(spec.From),
		Mentioned: spec.Mention,
		FromBot:   spec.FromBot && h.mutant != "bot-unflagged",
	}
	if err := h.fake.InjectMessage(ctx, m); err != nil {
		return "", err
	}
	if spec.Twice {
		if h.mutant == "rekey-twice" {
			m.Key += "-again"
		}
		if err := h.fake.InjectMessage(ctx, m); err != nil {
			return "", err
		}
	}
	return id, nil
}

func (h *memHarness) Click(ctx context.Context, ref chat.MessageRef, button int, by chat.User) error {
	var buttons []chat.Button
	found := false
	for _, m := range h.fake.Messages(ref.Thread) {
		if m.Ref.ID == ref.ID {
			buttons, found = m.Buttons, true
		}
	}
	if !found || button < 0 || button >= len(buttons) {
		return fmt.Errorf("no button %d under message %s", button, ref.ID)
	}
	data := buttons[button].Data
	if h.mutant == "cut-button-data" {
		data = data[:len(data)-1]
	}
	return h.fake.InjectAction(ctx, chat.Action{
		Key: "click:" + h.newID(), Thread: ref.Thread, User: by, Data: data, Message: ref,
		Respond: func(ctx context.Context, text string) error {
			if h.mutant == "public-respond" {
				_, err := h.fake.Send(ctx, ref.Thread, chat.Out{Text: text})
				return err
			}
			return h.fake.SendPrivate(ctx, ref.Thread, by, chat.Out{Text: text})
		},
	})
}

func (h *memHarness) Visible(t chat.Thread) []bottest.Visible {
	var out []bottest.Visible
	for _, m := range h.fake.Messages(t) {
		v := bottest.Visible{ID: m.Ref.ID, Text: m.Text}
		for _, b := range m.Buttons {
			v.Buttons = append(v.Buttons, b.Label)
		}
		// The fake has no mentions; the mutant pretends to be a platform
		// that pings on a literal @everyone.
		if h.mutant == "ping-everyone" && strings.Contains(m.Text, "@everyone") {
			v.Pings = []string{"everyone"}
		}
		// The mutant pretends to be a platform that previews links.
		v.Previews = h.mutant == "preview-links" && strings.Contains(m.Text, "://")
		out = append(out, v)
	}
	return out
}

func (h *memHarness) PrivateTo(u chat.User) []string {
	var out []string
	for _, c := range h.fake.Private() {
		if c.User.Platform == u.Platform && c.User.ID == u.ID {
			out = append(out, c.Out.Text)
		}
	}
	for _, m := range h.fake.Messages(h.direct(u)) {
		out = append(out, m.Text)
	}
	return out
}

func (h *memHarness) RateLimitNext(op bottest.Op, retryAfter time.Duration) {
	h.fake.FailNext(op, 1, bottest.RateLimited(retryAfter))
}

func (h *memHarness) RendersMarkdown() bool { return false }

// mutantAdapter breaks the fake's outbound side in one named way.
type mutantAdapter struct {
	*bottest.Adapter
	mutant string
}

func (m *mutantAdapter) Send(ctx context.Context, t chat.Thread, out chat.Out) (chat.MessageRef, error) {
	out = m.cut(out)
	ref, err := m.Adapter.Send(ctx, t, out)
	return ref, m.slowDown(ctx, err, func() error {
		ref, err = m.Adapter.Send(ctx, t, out)
		return err
	})
}

func (m *mutantAdapter) Edit(ctx context.Context, ref chat.MessageRef, out chat.Out) error {
	out = m.cut(out)
	if m.mutant == "edit-posts-new" {
		_, err := m.Adapter.Send(ctx, ref.Thread, out)
		return err
	}
	err := m.Adapter.Edit(ctx, ref, out)
	return m.slowDown(ctx, err, func() error { return m.Adapter.Edit(ctx, ref, out) })
}

func (m *mutantAdapter) SendPrivate(ctx context.Context, t chat.Thread, u chat.User, out chat.Out) error {
	if m.mutant == "private-to-all" {
		_, err := m.Adapter.Send(ctx, t, out)
		return err
	}
	return m.Adapter.SendPrivate(ctx, t, u, out)
}

func (m *mutantAdapter) cut(out chat.Out) chat.Out {
	if limit := m.Capabilities().MaxLen; m.mutant == "truncate" && len(out.Text) > limit {
		out.Text = out.Text[:limit]
	}
	return out
}

// slowDown is what the rate-limit mutants do with a 429.
func (m *mutantAdapter) slowDown(ctx context.Context, err error, retry func() error) error {
	d, limited := chat.RetryAfter(err)
	switch {
	case !limited:
		return err
	case m.mutant == "lose-429":
		return errors.New(err.Error())
	case m.mutant == "sleep-429":
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C:
			return retry()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return err
}
