package bottest

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/parleybot/parley/chat"
)

// checkCapabilities: the pacer and the splitter divide by them and measure
// with them.
func checkCapabilities(t *testing.T, newHarness func(*testing.T) Harness) {
	h := newHarness(t)
	a := h.Adapter()
	if a.Platform() == "" {
		t.Error("Platform() is empty")
	}
	c := a.Capabilities()
	if c.MaxLen <= 0 {
		t.Errorf("MaxLen = %d, want > 0", c.MaxLen)
	}
	if c.SplitAt <= 0 || c.SplitAt > c.MaxLen {
		t.Errorf("SplitAt = %d, want 0 < SplitAt <= MaxLen (%d)", c.SplitAt, c.MaxLen)
	}
	if c.EditEvery <= 0 {
		t.Errorf("EditEvery = %v, want > 0", c.EditEvery)
	}
	if c.EditBurst < 1 {
		t.Errorf("EditBurst = %d, want >= 1", c.EditBurst)
	}
	switch c.EditScope {
	case chat.PacePerChat, chat.PacePerWorkspace, chat.PaceGlobal:
	default:
		t.Errorf("EditScope = %d, not a chat.PaceScope", c.EditScope)
	}
	if c.Measure != nil && c.SplitAt > 0 {
		// Plain ASCII has no markup and one unit per character on every
		// platform; the length checks below rely on that.
		for _, s := range []string{"", "a", "hello world", confText(c.SplitAt)} {
			if got, want := c.Measure(s), utf8.RuneCountInString(s); got != want {
				t.Errorf("Measure of %d plain ASCII characters = %d", want, got)
			}
		}
	}
	alice := h.User("alice")
	if alice.Platform != a.Platform() || alice.ID == "" {
		t.Errorf("harness User(alice) = %+v; want Platform %q and an ID", alice, a.Platform())
	}
	for _, k := range confKinds {
		if th := h.Thread(k, alice); th.Platform != a.Platform() {
			t.Errorf("harness %v thread %v: Platform is not %q", k, th, a.Platform())
		}
	}
}

// checkSendEdit: Send then Edit changes one message in place; streaming
// and the final answer rely on it ("one reply, one message").
func checkSendEdit(t *testing.T, newHarness func(*testing.T) Harness) {
	for _, kind := range confKinds {
		t.Run(kind.String(), func(t *testing.T) {
			h := newHarness(t)
			a := h.Adapter()
			ctx := confContext(t)
			startConfRun(t, a)
			th := h.Thread(kind, h.User("alice"))

			ref, err := a.Send(ctx, th, chat.Out{Text: "conformance first draft"})
			if err != nil {
				t.Fatalf("Send: %v", noLimits(err))
			}
			if ref.Thread != th {
				t.Errorf("Send returned ref.Thread %v, want the thread sent to, %v", ref.Thread, th)
			}
			if ref.ID == "" {
				t.Fatal("Send returned an empty message id")
			}
			expectOneVisible(t, h, th, ref.ID, "conformance first draft")

			if err := a.Edit(ctx, ref, chat.Out{Text: "conformance final answer"}); err != nil {
				t.Fatalf("Edit: %v", noLimits(err))
			}
			expectOneVisible(t, h, th, ref.ID, "conformance final answer")
		})
	}
}

// expectOneVisible checks that th shows exactly one message of the bot's: id,
// reading text.
func expectOneVisible(t *testing.T, h Harness, th chat.Thread, id, text string) {
	t.Helper()
	vis := h.Visible(th)
	if len(vis) != 1 || vis[0].ID != id || strings.TrimSpace(vis[0].Text) != text {
		t.Errorf("the conversation shows %s; want one message %s reading %q", describeVisible(vis), id, text)
	}
}

// checkLengths: the core splits answers at SplitAt and trusts MaxLen, so
// both must hold exactly, and an over-long text must fail loudly rather
// than lose its end.
func checkLengths(t *testing.T, newHarness func(*testing.T) Harness) {
	h := newHarness(t)
	a := h.Adapter()
	c := a.Capabilities()
	if c.MaxLen <= 0 || c.SplitAt <= 0 {
		t.Skip("no sane limits; see the capabilities check")
	}
	ctx := confContext(t)
	startConfRun(t, a)
	th := h.Thread(GroupThread, h.User("alice"))

	split := confText(c.SplitAt)
	ref, err := a.Send(ctx, th, chat.Out{Text: split})
	if err != nil {
		t.Fatalf("Send of exactly SplitAt (%d) characters: %v", c.SplitAt, noLimits(err))
	}
	if v, ok := visibleByID(h.Visible(th), ref.ID); !ok || strings.TrimSpace(v.Text) != split {
		t.Errorf("Send of exactly SplitAt characters shows %s; want message %s with the %d characters intact",
			describeVisible(h.Visible(th)), ref.ID, c.SplitAt)
	}

	full := confText(c.MaxLen)
	if err := a.Edit(ctx, ref, chat.Out{Text: full}); err != nil {
		t.Errorf("Edit to exactly MaxLen (%d) characters: %v", c.MaxLen, noLimits(err))
	} else if v, ok := visibleByID(h.Visible(th), ref.ID); !ok || strings.TrimSpace(v.Text) != full {
		t.Errorf("Edit to exactly MaxLen characters shows %s; want message %s with the %d characters intact",
			describeVisible(h.Visible(th)), ref.ID, c.MaxLen)
	}
	before := h.Visible(th)

	long := confText(c.MaxLen + 1)
	if _, err := a.Send(ctx, th, chat.Out{Text: long}); err == nil {
		t.Errorf("Send of MaxLen+1 (%d) characters succeeded; want an error (the core splits; adapters never truncate)", c.MaxLen+1)
	}
	if err := a.Edit(ctx, ref, chat.Out{Text: long}); err == nil {
		t.Errorf("Edit to MaxLen+1 (%d) characters succeeded; want an error", c.MaxLen+1)
	}
	if after := h.Visible(th); !sameVisible(before, after) {
		t.Errorf("refused over-long Send and Edit changed the conversation:\nbefore %s\nafter  %s", describeVisible(before), describeVisible(after))
	}
}

// checkMarkdown: the model writes Markdown, and people must see
// formatting, not asterisks and backticks.
func checkMarkdown(t *testing.T, newHarness func(*testing.T) Harness) {
	h := newHarness(t)
	if !h.RendersMarkdown() {
		t.Skip("the harness's platform shows text as sent, without formatting")
	}
	a := h.Adapter()
	ctx := confContext(t)
	startConfRun(t, a)
	th := h.Thread(GroupThread, h.User("alice"))
	ref, err := a.Send(ctx, th, chat.Out{Text: "Deploy **finished** with `make ship` now"})
	if err != nil {
		t.Fatalf("Send: %v", noLimits(err))
	}
	v, ok := visibleByID(h.Visible(th), ref.ID)
	if !ok {
		t.Fatalf("message %s not shown; the conversation shows %s", ref.ID, describeVisible(h.Visible(th)))
	}
	if got, want := collapseSpace(v.Text), "Deploy finished with make ship now"; got != want {
		t.Errorf("a person reads %q, want %q (markup rendered, not shown literally)", v.Text, want)
	}
	if !slices.ContainsFunc(v.Bold, func(s string) bool { return strings.TrimSpace(s) == "finished" }) {
		t.Errorf("bold runs %q, want \"finished\" among them", v.Bold)
	}
	if !slices.ContainsFunc(v.Code, func(s string) bool { return strings.TrimSpace(s) == "make ship" }) {
		t.Errorf("code runs %q, want \"make ship\" among them", v.Code)
	}
}

// checkMassMentions: mass mentions the model writes, by accident or
// because a web page told it to, never notify a channel.
func checkMassMentions(t *testing.T, newHarness func(*testing.T) Harness) {
	const text = "Heads up @everyone and @here and @channel, also <!channel> <!here> <!everyone>"
	for _, v := range sentAndEditedIn(t, newHarness, text) {
		if len(v.Pings) > 0 {
			t.Errorf("message %s pinged %q; want no mass mention to notify anyone", v.ID, v.Pings)
		}
		// Neutralized, not deleted: people still read what the model wrote.
		low := strings.ToLower(v.Text)
		if !strings.Contains(low, "everyone") || !strings.Contains(low, "here") {
			t.Errorf("message %s reads %q; want the words kept, only their ping defused", v.ID, v.Text)
		}
	}
}

// checkNoPreviews: a link the model writes, sent or edited in, is never
// fetched by the platform for a preview: a model that read a poisoned
// page can put data in the address, and the fetch needs no click.
func checkNoPreviews(t *testing.T, newHarness func(*testing.T) Harness) {
	const text = "See https://evil.example/c?d=salary-84000 and [the report](https://evil.example/r?d=1)"
	for _, v := range sentAndEditedIn(t, newHarness, text) {
		if v.Previews {
			t.Errorf("message %s (%q) has its links previewed; want no preview fetched", v.ID, v.Text)
		}
	}
}

// sentAndEditedIn shows text both ways an answer reaches a group thread —
// edited into a message sent first as a draft (a streamed answer's
// final), and sent as it is — and returns the two messages as people see
// them.
func sentAndEditedIn(t *testing.T, newHarness func(*testing.T) Harness, text string) []Visible {
	t.Helper()
	h := newHarness(t)
	a := h.Adapter()
	ctx := confContext(t)
	startConfRun(t, a)
	th := h.Thread(GroupThread, h.User("alice"))
	ref, err := a.Send(ctx, th, chat.Out{Text: "draft"})
	if err != nil {
		t.Fatalf("Send: %v", noLimits(err))
	}
	if err := a.Edit(ctx, ref, chat.Out{Text: text}); err != nil {
		t.Fatalf("Edit: %v", noLimits(err))
	}
	if _, err := a.Send(ctx, th, chat.Out{Text: text}); err != nil {
		t.Fatalf("Send: %v", noLimits(err))
	}
	vis := h.Visible(th)
	if len(vis) != 2 {
		t.Fatalf("the conversation shows %s; want 2 messages", describeVisible(vis))
	}
	return vis
}

// checkButtons: approvals put an id of up to MaxButtonData bytes in a
// button and must get it back, with who clicked where, and must be able
// to answer the clicker alone. It is long as a suite is: a list of
// subtests sharing one harness.
func checkButtons(t *testing.T, newHarness func(*testing.T) Harness) {
	h := newHarness(t)
	a := h.Adapter()
	if !a.Capabilities().Buttons {
		t.Skip("Capabilities.Buttons is false")
	}
	ctx := confContext(t)
	run := startConfRun(t, a)
	alice, bob := h.User("alice"), h.User("bob")
	th := h.Thread(GroupThread, alice)

	long := confButtonData(chat.MaxButtonData)
	const short = "d:conformance"
	ref, err := a.Send(ctx, th, chat.Out{Text: "May I run the deploy", Buttons: []chat.Button{
		{Label: "Approve", Style: chat.ButtonPrimary, Data: long},
		{Label: "Deny", Style: chat.ButtonDanger, Data: short},
	}})
	if err != nil {
		t.Fatalf("Send with buttons: %v", noLimits(err))
	}
	if v, ok := visibleByID(h.Visible(th), ref.ID); !ok || !slices.Equal(v.Buttons, []string{"Approve", "Deny"}) {
		t.Fatalf("the conversation shows %s; want message %s with buttons [Approve Deny]", describeVisible(h.Visible(th)), ref.ID)
	}

	// Answer each click privately from inside the handler, as the
	// approvals do: some platforms only take the private answer as the
	// reply to the click itself.
	answers := []string{"conformance private answer one", "conformance private answer two"}
	var n atomic.Int32
	run.rec.setOnAction(func(ctx context.Context, act chat.Action) error {
		text := "conformance private answer extra"
		if i := int(n.Add(1)) - 1; i < len(answers) {
			text = answers[i]
		}
		if act.Respond != nil {
			return act.Respond(ctx, text)
		}
		return a.SendPrivate(ctx, act.Thread, act.User, chat.Out{Text: text})
	})

	clicks := []struct {
		by     chat.User
		button int
		data   string
		answer string
		other  chat.User
	}{
		{bob, 0, long, answers[0], alice},
		{alice, 1, short, answers[1], bob},
	}
	var keys []string
	for i, c := range clicks {
		if err := h.Click(ctx, ref, c.button, c.by); err != nil {
			t.Fatalf("click %d: %v", i+1, err)
		}
		got, err := run.waitAction(ctx, i)
		if err != nil {
			t.Fatalf("click %d (%s on button %d): no action reached the handler: %v", i+1, c.by.ID, c.button, err)
		}
		act, respondErr := got.act, got.err
		if act.Data != c.data {
			t.Errorf("click %d: Data = %q (%d bytes), want %q (%d bytes)", i+1, act.Data, len(act.Data), c.data, len(c.data))
		}
		if act.User.Platform != c.by.Platform || act.User.ID != c.by.ID {
			t.Errorf("click %d: User = %+v, want the clicker %+v", i+1, act.User, c.by)
		}
		// The approvals match the clicked message on platform, chat and id
		// (bot.shownIn); a click may normalize workspace or thread root
		// differently from a send.
		if act.Message.ID != ref.ID || act.Message.Thread.Platform != ref.Thread.Platform || act.Message.Thread.Chat != ref.Thread.Chat {
			t.Errorf("click %d: Message = %+v, want the message clicked, %+v", i+1, act.Message, ref)
		}
		if act.Thread.Platform != th.Platform || act.Thread.Chat != th.Chat {
			t.Errorf("click %d: Thread = %v, want the conversation of the message, %v", i+1, act.Thread, th)
		}
		if act.Key == "" {
			t.Errorf("click %d: empty Key", i+1)
		} else if slices.Contains(keys, act.Key) {
			// The router drops a key it has seen: a second person's click
			// must not be mistaken for a redelivery of the first.
			t.Errorf("click %d: Key %q repeats an earlier click's", i+1, act.Key)
		}
		keys = append(keys, act.Key)
		if respondErr != nil {
			t.Errorf("click %d: answering the clicker (Respond: %v): %v", i+1, act.Respond != nil, respondErr)
			continue
		}
		if !anyContains(h.PrivateTo(c.by), c.answer) {
			t.Errorf("click %d: the clicker's private view %q lacks the answer %q", i+1, h.PrivateTo(c.by), c.answer)
		}
		if anyContains(h.PrivateTo(c.other), c.answer) {
			t.Errorf("click %d: %s, who did not click, was shown the clicker's private answer", i+1, c.other.ID)
		}
		if visibleContains(h.Visible(th), c.answer) {
			t.Errorf("click %d: the private answer is visible in the conversation: %s", i+1, describeVisible(h.Visible(th)))
		}
	}

	// A decision replaces the buttons with who decided.
	if err := a.Edit(ctx, ref, chat.Out{Text: "Approved by bob"}); err != nil {
		t.Fatalf("Edit removing the buttons: %v", noLimits(err))
	}
	if v, ok := visibleByID(h.Visible(th), ref.ID); !ok || len(v.Buttons) != 0 || strings.TrimSpace(v.Text) != "Approved by bob" {
		t.Errorf("after an edit without buttons the conversation shows %s; want message %s reading %q with no buttons",
			describeVisible(h.Visible(th)), ref.ID, "Approved by bob")
	}
}
