package bottest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/parleybot/parley/bot"
)

// The conformance suite: every platform adapter, wired to its platform's
// fake, must pass RunConformance. It checks the promises the chat core
// builds on (bot.Adapter, platforms.md §1) from both sides: what the core
// gets back from the adapter, and what a person on the platform sees.
//
// A platform's test calls it with a Harness over the real adapter and its
// wire-protocol fake:
//
//	func TestConformance(t *testing.T) {
//		bottest.RunConformance(t, func(t *testing.T) bottest.Harness {
//			// The real adapter against slacktest, the fake's own rate
//			// limits off; the fake is closed by a t.Cleanup.
//			return newSlackHarness(t)
//		})
//	}
//
// newHarness is called once per check, so no check sees another's messages,
// faults or rate-limit state.

// Deadlines that only ever signal failure: a passing run never waits for
// them, so they can be generous for slow race-enabled machines.
const (
	// confWait bounds every wait for an event and every call.
	confWait = 15 * time.Second
	// confRetryAfter is the retry-after the platform answers in the
	// rate-limit check: far longer than confCallLimit, so an adapter that
	// waits it out inside the call is caught by the call's deadline.
	confRetryAfter = 30 * time.Second
	confCallLimit  = 5 * time.Second
)

// ThreadKind is a kind of conversation every platform has.
type ThreadKind int

const (
	// DirectThread is the one continuing direct conversation between the
	// bot and a person: Slack D… channel, Telegram private chat, Discord
	// DM channel.
	DirectThread ThreadKind = iota
	// GroupThread is a conversation inside a group chat that several
	// people see: a Slack thread under a channel message, a Telegram forum
	// topic (not a reply chain: a reply to the bot counts as a mention,
	// and one check writes there without mentioning it), a Discord thread
	// in a guild channel.
	GroupThread
)

var confKinds = []ThreadKind{DirectThread, GroupThread}

func (k ThreadKind) String() string {
	switch k {
	case DirectThread:
		return "direct"
	case GroupThread:
		return "group"
	}
	return fmt.Sprintf("ThreadKind(%d)", int(k))
}

// ErrUnsupported is what Harness.UserMessage returns for an event its
// platform never delivers (Telegram does not deliver other bots' messages);
// the suite skips that case.
var ErrUnsupported = errors.New("bottest: the platform never delivers such an event")

// MessageSpec describes an inbound message for Harness.UserMessage.
type MessageSpec struct {
	// Thread is where it is written: a conversation from Harness.Thread.
	Thread bot.Thread
	// From is the author, from Harness.User.
	From bot.User
	// Text is what the author typed, apart from any mention of the bot:
	// letters, digits and single spaces.
	Text string
	// Mention: the author @-mentions the bot. The fake writes the
	// platform's mention of the bot at the start of the text, as a client
	// does when the bot is picked from the list (Slack "<@UBOT> ", Telegram
	// "@botname " with a mention entity, Discord "<@id> "), and sends
	// whatever else the platform sends for a mention (Slack's app_mention).
	Mention bool
	// FromBot: the author is a bot (Slack bot_id / subtype bot_message,
	// Discord author.bot, Telegram from.is_bot).
	FromBot bool
	// Twice: the platform delivers this one message twice, the way it
	// really duplicates events: Slack as both message and app_mention (with
	// Mention; else a retried envelope), Telegram the same update_id again,
	// Discord the same MESSAGE_CREATE replayed after a RESUME.
	Twice bool
}

// Visible is one of the bot's messages as people in its conversation see
// it now.
type Visible struct {
	// ID is the message's id, as in bot.MessageRef.ID.
	ID string
	// Text is what a person reads: formatting interpreted and its markup
	// gone (Telegram HTML tags and entities, Slack mrkdwn / markdown,
	// Discord Markdown), escapes resolved (&lt; reads as <). A fake that
	// does not render (Harness.RendersMarkdown false) gives the text as
	// stored.
	Text string
	// Bold and Code are the runs of Text the platform shows in bold and as
	// code (inline or block), in order.
	Bold, Code []string
	// Buttons are the labels of the message's buttons, row by row, left
	// to right.
	Buttons []string
	// Pings are the mass mentions that notified people when the message
	// was posted or edited, by the platform's own rules: "everyone",
	// "here", "channel". Discord: @everyone / @here in content that
	// allowed_mentions did not exclude; Slack: <!channel>, <!here>,
	// <!everyone> (and @channel, @here, @everyone where Slack parses
	// them); Telegram has no mass mentions and never pings.
	Pings []string
}

// Harness is one platform for the conformance suite: the adapter under
// test, and the platform's side of the conversation, from its fake.
//
// The suite calls the adapter's Run itself (at most once per harness, and
// stops it before the harness's t.Cleanup functions run), so newHarness
// must not start it. The fake must not rate-limit the suite's calls except
// through RateLimitNext: the checks send and edit a few messages in quick
// succession, and limits are the fake's own tests' business.
//
// The fake must echo the bot's own posts and edits back to the adapter
// wherever the real platform does (Slack message with bot_id and
// message_changed, Discord MESSAGE_CREATE by the bot), since filtering them
// is part of what is checked.
type Harness interface {
	// Adapter returns the adapter under test, wired to the fake.
	Adapter() bot.Adapter
	// User returns the person called name, as the adapter must identify
	// them (Platform and ID; Name is not checked). The same name gives the
	// same person; different names, different people. Every person can
	// write to the bot directly and is a member of every group chat.
	User(name string) bot.User
	// Thread returns a conversation of the kind, with the person with:
	// the direct one with them, or a new group conversation they started
	// (the author of its root message, where the platform needs one). It
	// must be exactly the bot.Thread the adapter normalizes messages
	// written there to, and Send to it must post where those messages are.
	// Each GroupThread call returns a new conversation.
	Thread(kind ThreadKind, with bot.User) bot.Thread
	// UserMessage makes the platform deliver m to the adapter as its real
	// API would, and returns the platform's id of the message (what
	// bot.Message.ID must be). It may return before the adapter has
	// handled it, and may be called as soon as Run has been started: the
	// fake holds the event until the adapter is connected or polls, as the
	// platform does for a connecting app. It returns ErrUnsupported when
	// the platform never delivers such a message.
	UserMessage(ctx context.Context, m MessageSpec) (id string, err error)
	// Click makes person by click the button-th button (counted as in
	// Visible.Buttons) under the bot's message ref, delivered as the
	// platform delivers a click (Slack block_actions, Telegram
	// callback_query, Discord INTERACTION_CREATE). The payload is the one
	// the platform stored with that button, never one the suite chooses:
	// that is what makes the check a round trip. It returns an error if
	// there is no such message or button. Like UserMessage it may return
	// before the adapter has handled the click.
	Click(ctx context.Context, ref bot.MessageRef, button int, by bot.User) error
	// Visible returns the bot's messages in t, oldest first, as people in
	// t see them now: not its ephemeral or private messages, not messages
	// of people.
	Visible(t bot.Thread) []Visible
	// PrivateTo returns the texts shown to u alone, oldest first, as u
	// reads them: ephemeral messages, callback alerts, interaction replies
	// only u sees, and the bot's messages in its direct conversation with u.
	PrivateTo(u bot.User) []string
	// RateLimitNext makes the platform answer the next call of op (OpSend
	// or OpEdit) with its rate-limit answer asking to retry after
	// retryAfter: Slack HTTP 429 with Retry-After and "ratelimited",
	// Telegram 429 with parameters.retry_after, Discord 429 with
	// Retry-After and a JSON retry_after. The call does nothing else.
	RateLimitNext(op Op, retryAfter time.Duration)
	// RendersMarkdown is false for a fake that stores text as sent with no
	// formatting at all (the in-memory Adapter); the formatting check is
	// then skipped. Every real platform renders.
	RendersMarkdown() bool
}

// RunConformance runs every conformance check against a fresh harness from
// newHarness, each as its own subtest:
//
//   - capabilities: MaxLen > 0, 0 < SplitAt <= MaxLen, EditEvery > 0,
//     EditBurst >= 1, Measure agrees with rune count on plain ASCII.
//   - send and edit (direct, group): Send's ref names the thread sent to;
//     Edit changes that one message in place.
//   - length limits: exactly SplitAt (Send) and MaxLen (Edit) characters
//     are shown whole; MaxLen+1 is refused by Send and Edit, changing
//     nothing.
//   - markdown rendered: bold and code show as formatting (skipped when
//     the harness does not render).
//   - mass mentions neutralized: @everyone, @here, @channel, <!channel>…
//     notify nobody, by Send or by Edit, and their words stay readable.
//   - buttons: a MaxButtonData-byte payload round-trips through a click
//     with the clicker, the message and a distinct Key; the answer to the
//     clicker (Respond, else SendPrivate) reaches them alone; an edit
//     removes the buttons (skipped without Capabilities.Buttons).
//   - inbound messages: Key, ID, Thread, User, Text without the bot's
//     mention, Direct, Mentioned; one key for one event delivered twice,
//     distinct keys for distinct events; other bots' and the bot's own
//     messages dropped or flagged FromBot.
//   - private messages: SendPrivate reaches that person alone.
//   - rate limit (send, edit): a 429 returns at once as a
//     *bot.RateLimitError carrying the platform's retry-after, and changes
//     nothing.
//   - run stops on cancel: at once, and while receiving.
//   - typing: never an error, in either kind of conversation.
func RunConformance(t *testing.T, newHarness func(t *testing.T) Harness) {
	t.Helper()
	checks := []struct {
		name  string
		check func(t *testing.T, newHarness func(t *testing.T) Harness)
	}{
		{"capabilities", checkCapabilities},
		{"send and edit", checkSendEdit},
		{"length limits", checkLengths},
		{"markdown rendered", checkMarkdown},
		{"mass mentions neutralized", checkMassMentions},
		{"buttons", checkButtons},
		{"inbound messages", checkInbound},
		{"private messages", checkPrivate},
		{"rate limit", checkRateLimit},
		{"run stops on cancel", checkRunStops},
		{"typing", checkTyping},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.check(t, newHarness) })
	}
}

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
	case bot.PacePerChat, bot.PacePerWorkspace, bot.PaceGlobal:
	default:
		t.Errorf("EditScope = %d, not a bot.PaceScope", c.EditScope)
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

			ref, err := a.Send(ctx, th, bot.Out{Text: "conformance first draft"})
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

			if err := a.Edit(ctx, ref, bot.Out{Text: "conformance final answer"}); err != nil {
				t.Fatalf("Edit: %v", noLimits(err))
			}
			expectOneVisible(t, h, th, ref.ID, "conformance final answer")
		})
	}
}

// expectOneVisible checks that th shows exactly one message of the bot's: id,
// reading text.
func expectOneVisible(t *testing.T, h Harness, th bot.Thread, id, text string) {
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
	ref, err := a.Send(ctx, th, bot.Out{Text: split})
	if err != nil {
		t.Fatalf("Send of exactly SplitAt (%d) characters: %v", c.SplitAt, noLimits(err))
	}
	if v, ok := visibleByID(h.Visible(th), ref.ID); !ok || strings.TrimSpace(v.Text) != split {
		t.Errorf("Send of exactly SplitAt characters shows %s; want message %s with the %d characters intact",
			describeVisible(h.Visible(th)), ref.ID, c.SplitAt)
	}

	full := confText(c.MaxLen)
	if err := a.Edit(ctx, ref, bot.Out{Text: full}); err != nil {
		t.Errorf("Edit to exactly MaxLen (%d) characters: %v", c.MaxLen, noLimits(err))
	} else if v, ok := visibleByID(h.Visible(th), ref.ID); !ok || strings.TrimSpace(v.Text) != full {
		t.Errorf("Edit to exactly MaxLen characters shows %s; want message %s with the %d characters intact",
			describeVisible(h.Visible(th)), ref.ID, c.MaxLen)
	}
	before := h.Visible(th)

	long := confText(c.MaxLen + 1)
	if _, err := a.Send(ctx, th, bot.Out{Text: long}); err == nil {
		t.Errorf("Send of MaxLen+1 (%d) characters succeeded; want an error (the core splits; adapters never truncate)", c.MaxLen+1)
	}
	if err := a.Edit(ctx, ref, bot.Out{Text: long}); err == nil {
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
	ref, err := a.Send(ctx, th, bot.Out{Text: "Deploy **finished** with `make ship` now"})
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
	h := newHarness(t)
	a := h.Adapter()
	ctx := confContext(t)
	startConfRun(t, a)
	th := h.Thread(GroupThread, h.User("alice"))
	const text = "Heads up @everyone and @here and @channel, also <!channel> <!here> <!everyone>"
	ref, err := a.Send(ctx, th, bot.Out{Text: "draft"})
	if err != nil {
		t.Fatalf("Send: %v", noLimits(err))
	}
	// Both paths: a streamed answer's final text arrives by Edit.
	if err := a.Edit(ctx, ref, bot.Out{Text: text}); err != nil {
		t.Fatalf("Edit: %v", noLimits(err))
	}
	if _, err := a.Send(ctx, th, bot.Out{Text: text}); err != nil {
		t.Fatalf("Send: %v", noLimits(err))
	}
	vis := h.Visible(th)
	if len(vis) != 2 {
		t.Fatalf("the conversation shows %s; want 2 messages", describeVisible(vis))
	}
	for _, v := range vis {
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

// checkButtons: approvals put an id of up to MaxButtonData bytes in a
// button and must get it back, with who clicked where, and must be able
// to answer the clicker alone.
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

	long := confButtonData(bot.MaxButtonData)
	const short = "d:conformance"
	ref, err := a.Send(ctx, th, bot.Out{Text: "May I run the deploy", Buttons: []bot.Button{
		{Label: "Approve", Style: bot.ButtonPrimary, Data: long},
		{Label: "Deny", Style: bot.ButtonDanger, Data: short},
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
	run.rec.setOnAction(func(ctx context.Context, act bot.Action) error {
		text := "conformance private answer extra"
		if i := int(n.Add(1)) - 1; i < len(answers) {
			text = answers[i]
		}
		if act.Respond != nil {
			return act.Respond(ctx, text)
		}
		return a.SendPrivate(ctx, act.Thread, act.User, bot.Out{Text: text})
	})

	clicks := []struct {
		by     bot.User
		button int
		data   string
		answer string
		other  bot.User
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
	if err := a.Edit(ctx, ref, bot.Out{Text: "Approved by bob"}); err != nil {
		t.Fatalf("Edit removing the buttons: %v", noLimits(err))
	}
	if v, ok := visibleByID(h.Visible(th), ref.ID); !ok || len(v.Buttons) != 0 || strings.TrimSpace(v.Text) != "Approved by bob" {
		t.Errorf("after an edit without buttons the conversation shows %s; want message %s reading %q with no buttons",
			describeVisible(h.Visible(th)), ref.ID, "Approved by bob")
	}
}

// checkInbound: messages arrive normalized; the router gates, dedupes and
// routes on these fields alone.
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
	deliver := func(t *testing.T, token string, spec MessageSpec) bot.Message {
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
		ref, err := a.Send(ctx, group, bot.Out{Text: "my own words tokown"})
		if err != nil {
			t.Fatalf("Send: %v", noLimits(err))
		}
		if err := a.Edit(ctx, ref, bot.Out{Text: "my own words tokown edited"}); err != nil {
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

// checkPrivate: SendPrivate reaches that person alone (/memory, "not allowed").
func checkPrivate(t *testing.T, newHarness func(*testing.T) Harness) {
	h := newHarness(t)
	a := h.Adapter()
	ctx := confContext(t)
	startConfRun(t, a)
	alice, bob := h.User("alice"), h.User("bob")
	th := h.Thread(GroupThread, alice)
	const text = "conformance private note"
	if err := a.SendPrivate(ctx, th, alice, bot.Out{Text: text}); err != nil {
		t.Fatalf("SendPrivate: %v", noLimits(err))
	}
	if !anyContains(h.PrivateTo(alice), text) {
		t.Errorf("the recipient's private view %q lacks %q", h.PrivateTo(alice), text)
	}
	if anyContains(h.PrivateTo(bob), text) {
		t.Errorf("someone else was shown the private message")
	}
	if visibleContains(h.Visible(th), text) {
		t.Errorf("the private message is visible in the conversation: %s", describeVisible(h.Visible(th)))
	}
}

// checkRateLimit: a 429 comes back at once, as the one shape delivery
// understands, with the platform's retry-after: delivery coalesces frames
// while it backs off, which it cannot do while the adapter sleeps in a
// call.
func checkRateLimit(t *testing.T, newHarness func(*testing.T) Harness) {
	t.Run("send", func(t *testing.T) {
		h := newHarness(t)
		a := h.Adapter()
		startConfRun(t, a)
		th := h.Thread(GroupThread, h.User("alice"))
		h.RateLimitNext(OpSend, confRetryAfter)
		err := callPromptly(t, func(ctx context.Context) error {
			_, err := a.Send(ctx, th, bot.Out{Text: "conformance rate limited"})
			return err
		})
		expectRetryAfter(t, "Send", err)
		if vis := h.Visible(th); len(vis) != 0 {
			t.Errorf("a refused Send posted %s", describeVisible(vis))
		}
	})
	t.Run("edit", func(t *testing.T) {
		h := newHarness(t)
		a := h.Adapter()
		startConfRun(t, a)
		th := h.Thread(GroupThread, h.User("alice"))
		ref, err := a.Send(confContext(t), th, bot.Out{Text: "conformance before"})
		if err != nil {
			t.Fatalf("Send: %v", noLimits(err))
		}
		h.RateLimitNext(OpEdit, confRetryAfter)
		err = callPromptly(t, func(ctx context.Context) error {
			return a.Edit(ctx, ref, bot.Out{Text: "conformance after"})
		})
		expectRetryAfter(t, "Edit", err)
		expectOneVisible(t, h, th, ref.ID, "conformance before")
	})
}

// callPromptly runs call with a deadline far shorter than the retry-after
// the platform asked for, and returns its error. Only failure waits: a
// call that returns ends the wait at once.
func callPromptly(t *testing.T, call func(ctx context.Context) error) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), confCallLimit)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- call(ctx) }()
	timer := time.NewTimer(confWait)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			t.Fatalf("the call waited until its %v deadline (%v): it sleeps out the %v retry-after instead of returning it",
				confCallLimit, err, confRetryAfter)
		}
		return err
	case <-timer.C:
		t.Fatalf("the call did not return within %v of a %v deadline: it sleeps out the retry-after and ignores its context",
			confWait, confCallLimit)
		return nil
	}
}

// expectRetryAfter checks that err is the one 429 shape, carrying the
// retry-after the platform asked for.
func expectRetryAfter(t *testing.T, op string, err error) {
	t.Helper()
	d, ok := bot.RetryAfter(err)
	switch {
	case err == nil:
		t.Errorf("%s succeeded; the platform answered 429", op)
	case !ok:
		t.Errorf("%s returned %v (%T); want a *bot.RateLimitError, which bot.RetryAfter recognizes", op, err, err)
	case d <= 0:
		t.Errorf("%s: RetryAfter = %v, want > 0", op, d)
	case d < confRetryAfter/2 || d > 2*confRetryAfter:
		// A made-up default instead of the platform's figure either
		// hammers the platform or stalls the answer.
		t.Errorf("%s: RetryAfter = %v; the platform asked for %v", op, d, confRetryAfter)
	}
}

// checkRunStops: Run stops when its context ends; shutdown and tests
// depend on it.
func checkRunStops(t *testing.T, newHarness func(*testing.T) Harness) {
	t.Run("at once", func(t *testing.T) {
		h := newHarness(t)
		run := startConfRun(t, h.Adapter())
		run.stop(t)
	})
	t.Run("while receiving", func(t *testing.T) {
		h := newHarness(t)
		run := startConfRun(t, h.Adapter())
		alice := h.User("alice")
		ctx := confContext(t)
		if _, err := h.UserMessage(ctx, MessageSpec{Thread: h.Thread(DirectThread, alice), From: alice, Text: "are you there tokalive"}); err != nil {
			t.Fatalf("UserMessage: %v", err)
		}
		// Run is live once a message came through.
		if _, err := run.waitMessage(ctx, "tokalive"); err != nil {
			t.Fatalf("message never reached the handler: %v", err)
		}
		run.stop(t)
	})
}

// checkTyping: Typing never fails a turn; a platform without an
// indicator makes it a no-op (bot.Adapter).
func checkTyping(t *testing.T, newHarness func(*testing.T) Harness) {
	h := newHarness(t)
	a := h.Adapter()
	ctx := confContext(t)
	startConfRun(t, a)
	for _, kind := range confKinds {
		if err := a.Typing(ctx, h.Thread(kind, h.User("alice"))); err != nil {
			t.Errorf("Typing in a %v conversation: %v", kind, noLimits(err))
		}
	}
}

// confContext bounds a check's calls and waits; it only ever ends a
// failing test.
func confContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), confWait)
	t.Cleanup(cancel)
	return ctx
}

// noLimits explains a rate limit on a call the suite did not provoke.
func noLimits(err error) error {
	if _, ok := bot.RetryAfter(err); ok {
		return fmt.Errorf("%w (the fake rate-limited the suite: newHarness must turn the fake's own limits off)", err)
	}
	return err
}

// confRun is the adapter's Run in the background, handing events to a
// confHandler.
type confRun struct {
	rec      *confHandler
	cancel   context.CancelFunc
	stopping atomic.Bool
	done     chan struct{}
	err      error // Run's result; read after done is closed
	early    bool  // Run returned before stop
	once     sync.Once
}

// startConfRun starts a.Run and stops it when the test ends, if stop has not.
func startConfRun(t *testing.T, a bot.Adapter) *confRun {
	// Not t.Context(): that ends before cleanups run, and stop must tell
	// a Run that quit by itself from one that was stopped.
	ctx, cancel := context.WithCancel(context.Background())
	r := &confRun{rec: newConfHandler(), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = a.Run(ctx, r.rec)
		r.early = !r.stopping.Load()
	}()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop cancels Run's context and waits for Run to return.
func (r *confRun) stop(t *testing.T) {
	t.Helper()
	r.once.Do(func() {
		r.stopping.Store(true)
		r.cancel()
		timer := time.NewTimer(confWait)
		defer timer.Stop()
		select {
		case <-r.done:
		case <-timer.C:
			t.Errorf("Run did not return within %v of its context being cancelled", confWait)
			return
		}
		switch {
		case r.early:
			t.Errorf("Run returned before its context ended: %v", r.err)
		case r.err != nil && !errors.Is(r.err, context.Canceled):
			// The router ignores what Run returns after cancellation.
			t.Logf("Run returned %v after cancellation", r.err)
		}
	})
}

// waitMessage returns the first message whose text has the word token.
func (r *confRun) waitMessage(ctx context.Context, token string) (bot.Message, error) {
	var m bot.Message
	err := r.wait(ctx, func(rec *confHandler) bool {
		for _, x := range rec.msgs {
			if hasWord(x.Text, token) {
				m = x
				return true
			}
		}
		return false
	})
	return m, err
}

// messages returns every message whose text has the word token.
func (r *confRun) messages(token string) []bot.Message {
	r.rec.mu.Lock()
	defer r.rec.mu.Unlock()
	var out []bot.Message
	for _, m := range r.rec.msgs {
		if hasWord(m.Text, token) {
			out = append(out, m)
		}
	}
	return out
}

// waitAction returns the i-th action (from 0) the handler received.
func (r *confRun) waitAction(ctx context.Context, i int) (confAction, error) {
	var a confAction
	err := r.wait(ctx, func(rec *confHandler) bool {
		if len(rec.acts) > i {
			a = rec.acts[i]
			return true
		}
		return false
	})
	return a, err
}

// wait blocks until found reports true, Run ends on its own, or ctx ends.
func (r *confRun) wait(ctx context.Context, found func(*confHandler) bool) error {
	for {
		r.rec.mu.Lock()
		ok, changed := found(r.rec), r.rec.changed
		r.rec.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-r.done:
			// One last look: the event may have landed just before.
			r.rec.mu.Lock()
			ok := found(r.rec)
			r.rec.mu.Unlock()
			if ok {
				return nil
			}
			if r.early {
				return fmt.Errorf("Run returned on its own: %v", r.err)
			}
			return errors.New("Run was stopped")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// confAction is a click and what answering the clicker returned.
type confAction struct {
	act bot.Action
	err error
}

// confHandler is the Handler given to Run: it records and returns at once,
// like the router.
type confHandler struct {
	mu       sync.Mutex
	msgs     []bot.Message
	acts     []confAction
	onAction func(context.Context, bot.Action) error
	changed  chan struct{} // closed and replaced on every event
}

func newConfHandler() *confHandler { return &confHandler{changed: make(chan struct{})} }

func (r *confHandler) setOnAction(f func(context.Context, bot.Action) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.onAction = f
}

func (r *confHandler) HandleMessage(_ context.Context, m bot.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
	r.notify()
	return nil
}

func (r *confHandler) HandleAction(ctx context.Context, a bot.Action) error {
	r.mu.Lock()
	f := r.onAction
	r.mu.Unlock()
	var err error
	if f != nil {
		err = f(ctx, a)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acts = append(r.acts, confAction{act: a, err: err})
	r.notify()
	return nil
}

// HandleCommand accepts commands; no check sends any.
func (r *confHandler) HandleCommand(context.Context, bot.Command) error { return nil }

// notify wakes waiters; called with r.mu held.
func (r *confHandler) notify() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// confText returns n characters of plain ASCII words: no markup, nothing
// to escape, no leading or trailing space, measured the same everywhere.
func confText(n int) string {
	const collapseSpace = "lorem ipsum dolor sit amet consectetur adipiscing elit "
	b := []byte(strings.Repeat(collapseSpace, n/len(collapseSpace)+1)[:n])
	if n > 0 && b[n-1] == ' ' {
		b[n-1] = 'x'
	}
	return string(b)
}

// confButtonData returns an n-byte ASCII payload shaped like an approval's.
func confButtonData(n int) string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	s := "a:conformance:" + strings.Repeat(alphabet, n/len(alphabet)+1)
	return s[:n]
}

// collapseSpace collapses whitespace, so that a removed mention may leave its
// space behind.
func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

func hasWord(s, w string) bool { return slices.Contains(strings.Fields(s), w) }

func visibleByID(vis []Visible, id string) (Visible, bool) {
	for _, v := range vis {
		if v.ID == id {
			return v, true
		}
	}
	return Visible{}, false
}

// anyContains reports whether any of texts has text in it: an adapter may add
// to a private answer (an icon, a prefix), but not drop it.
func anyContains(texts []string, text string) bool {
	return slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, text) })
}

// visibleContains reports whether any message in vis has text in it.
func visibleContains(vis []Visible, text string) bool {
	return slices.ContainsFunc(vis, func(v Visible) bool { return strings.Contains(v.Text, text) })
}

func sameVisible(a, b []Visible) bool {
	return slices.EqualFunc(a, b, func(x, y Visible) bool {
		return x.ID == y.ID && x.Text == y.Text && slices.Equal(x.Buttons, y.Buttons)
	})
}

// describeVisible summarizes messages for failure output; long texts are cut.
func describeVisible(vis []Visible) string {
	if len(vis) == 0 {
		return "no messages"
	}
	parts := make([]string, len(vis))
	for i, v := range vis {
		text := v.Text
		if n := utf8.RuneCountInString(text); n > 60 {
			r := []rune(text)
			text = fmt.Sprintf("%s… (%d characters)", string(r[:60]), n)
		}
		parts[i] = fmt.Sprintf("%s %q", v.ID, text)
		if len(v.Buttons) > 0 {
			parts[i] += fmt.Sprintf(" buttons %q", v.Buttons)
		}
	}
	return fmt.Sprintf("%d message(s): %s", len(vis), strings.Join(parts, "; "))
}
