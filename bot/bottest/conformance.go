package bottest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/parleybot/parley/chat"
)

// The conformance suite: every platform adapter, wired to its platform's
// fake, must pass RunConformance. It checks the promises the chat core
// builds on (chat.Adapter, docs/platforms.md#adapter-contract) from both
// sides: what the core gets back from the adapter, and what a person on the
// platform sees.
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
	Thread chat.Thread
	// From is the author, from Harness.User.
	From chat.User
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
	// ID is the message's id, as in chat.MessageRef.ID.
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
	// Previews says the platform fetched (or would fetch) a link in the
	// message for a preview when it was posted or edited: Slack unfurls,
	// Discord embeds, Telegram link previews. Parley never lets it: the
	// fetch needs no click, and the address may carry data
	// (docs/security.md, "Links that fetch themselves").
	Previews bool
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
	Adapter() chat.Adapter
	// User returns the person called name, as the adapter must identify
	// them (Platform and ID; Name is not checked). The same name gives the
	// same person; different names, different people. Every person can
	// write to the bot directly and is a member of every group chat.
	User(name string) chat.User
	// Thread returns a conversation of the kind, with the person with:
	// the direct one with them, or a new group conversation they started
	// (the author of its root message, where the platform needs one). It
	// must be exactly the chat.Thread the adapter normalizes messages
	// written there to, and Send to it must post where those messages are.
	// Each GroupThread call returns a new conversation.
	Thread(kind ThreadKind, with chat.User) chat.Thread
	// UserMessage makes the platform deliver m to the adapter as its real
	// API would, and returns the platform's id of the message (what
	// chat.Message.ID must be). It may return before the adapter has
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
	Click(ctx context.Context, ref chat.MessageRef, button int, by chat.User) error
	// Visible returns the bot's messages in t, oldest first, as people in
	// t see them now: not its ephemeral or private messages, not messages
	// of people.
	Visible(t chat.Thread) []Visible
	// PrivateTo returns the texts shown to u alone, oldest first, as u
	// reads them: ephemeral messages, callback alerts, interaction replies
	// only u sees, and the bot's messages in its direct conversation with u.
	PrivateTo(u chat.User) []string
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
//     *chat.RateLimitError carrying the platform's retry-after, and changes
//     nothing.
//   - run stops on cancel: at once, and while receiving.
//   - typing: never an error, in either kind of conversation.
//
// skips name checks that do not apply to the platform at all (a terminal
// has one person and cannot edit what it printed), each with its reason;
// they are reported as skipped, with that reason.
func RunConformance(t *testing.T, newHarness func(t *testing.T) Harness, skips ...Skip) {
	t.Helper()
	checks := []struct {
		name  string
		check func(t *testing.T, newHarness func(t *testing.T) Harness)
	}{
		{"capabilities", checkCapabilities},
		{"send and edit", checkSendEdit},
		{"short answer", checkShortAnswer},
		{"length limits", checkLengths},
		{"markdown rendered", checkMarkdown},
		{"mass mentions neutralized", checkMassMentions},
		{"links not previewed", checkNoPreviews},
		{"buttons", checkButtons},
		{"inbound messages", checkInbound},
		{"private messages", checkPrivate},
		{"rate limit", checkRateLimit},
		{"run stops on cancel", checkRunStops},
		{"typing", checkTyping},
	}
	why := map[string]string{}
	for _, sk := range skips {
		known := false
		for _, c := range checks {
			known = known || c.name == sk.Check
		}
		if !known || sk.Why == "" {
			t.Fatalf("bottest: cannot skip %q (%q): name a check RunConformance runs, and say why", sk.Check, sk.Why)
		}
		why[sk.Check] = sk.Why
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if reason, ok := why[c.name]; ok {
				t.Skip(reason)
			}
			c.check(t, newHarness)
		})
	}
}

// Skip is a conformance check that does not apply to a platform: Check is
// its name as RunConformance lists it ("buttons"), Why the reason.
type Skip struct {
	Check string
	Why   string
}
