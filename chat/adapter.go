package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Adapter is one chat platform. Adapters translate and nothing else: they
// normalize platform events into Message / Action / Command, render Out
// into platform calls, and report rate limits as *RateLimitError. Sessions,
// pacing, approvals and commands are the core's.
type Adapter interface {
	// Platform names the platform: "slack", "telegram", "discord", "console".
	Platform() string
	Capabilities() Capabilities
	// Run receives events until ctx ends, handing each to h. The adapter
	// acknowledges the platform itself, after h returns (h only records
	// and enqueues, so it returns fast). The terminal's Run also returns
	// when its person leaves.
	Run(ctx context.Context, h Handler) error
	// Send posts out in the conversation t and returns its reference.
	Send(ctx context.Context, t Thread, out Out) (MessageRef, error)
	// Edit replaces the text (and buttons) of a message the bot sent.
	Edit(ctx context.Context, ref MessageRef, out Out) error
	// SendPrivate shows out to u alone: ephemeral in t where the platform
	// has it, otherwise a direct message.
	SendPrivate(ctx context.Context, t Thread, u User, out Out) error
	// Typing shows that an answer is being written (typing indicator,
	// assistant status); a no-op where the platform has none.
	Typing(ctx context.Context, t Thread) error
}

// Streamer is implemented by adapters with native streaming (Slack's
// chat.startStream, Telegram's drafts, a terminal).
type Streamer interface {
	// StreamsIn reports, without a platform call, whether t can stream
	// natively at all (Telegram drafts exist only in private chats, Slack
	// streams only in threads). Delivery asks before it spends a pacing
	// token on StartStream, so a conversation that cannot stream does not
	// start its reply an edit interval late.
	StreamsIn(t Thread) bool
	StartStream(ctx context.Context, t Thread, u User) (Stream, error)
}

// SentFinder is implemented by adapters whose platform can find a message
// by the Out.Key it was sent with (Slack: the metadata of the bot's
// messages in the conversation's history). After a send whose outcome is
// unknown (a crash between the call and recording its result, a timeout),
// Delivery asks before it sends the part again. after is the platform id
// of the message the reply answers, "" when unknown: the sent message
// came after it. ok is false when no such message exists; an error when
// asking failed, in which case Delivery asks again before sending.
type SentFinder interface {
	FindSent(ctx context.Context, t Thread, key, after string) (ref MessageRef, ok bool, err error)
}

// StatusShower is implemented by Streamers that can show a progress
// status ("running shell…") beside a native stream: a terminal prints it
// on a line of its own. Delivery then calls ShowStatus instead of Typing
// whenever the status of a natively streamed reply changes, before its
// stream has started as well as while it is open, and always after the
// text written before the status; a cleared status is not shown.
type StatusShower interface {
	ShowStatus(ctx context.Context, t Thread, status string) error
}

// AnswerWatcher is implemented by adapters that wait for the answer to a
// message before they take the next one (the terminal, which shows one
// prompt at a time). The router calls Answered with the message's Key once
// it is done with it: the turn that answered it has ended (delivered,
// failed or stopped, its inbox entry closed), or the message was not to be
// answered (a duplicate, a refusal, a bot's message, a command). It is not
// called for a message whose HandleMessage returned an error, nor for a
// turn that shutdown interrupts. Answered must not block.
type AnswerWatcher interface {
	Answered(key string)
}

// ZoneTeller is implemented by adapters whose platform keeps each
// person's time zone (Slack's profile), for what happens at a person's
// local time (reminders). UserZone returns u's IANA zone name
// ("Europe/Berlin"), or "" when the platform does not say; an error only
// when asking failed. Telegram and Discord keep no time zone.
type ZoneTeller interface {
	UserZone(ctx context.Context, u User) (string, error)
}

// FileFetcher is implemented by adapters that can download what people attach.
// FetchFile downloads f through the platform's API with the bot's own
// credentials, and returns at most max bytes: a file larger than max
// fails with ErrFileTooLarge, decided from f.Size before any download
// when the size is declared, and always while reading, so a wrong size
// cannot make it read more. max must be positive. The adapter fetches
// only from its platform's own file hosts (or its configured API URL): a
// File's URL comes from an event, which could be forged to send the
// bot's token elsewhere.
type FileFetcher interface {
	FetchFile(ctx context.Context, f File, max int64) ([]byte, error)
}

// ErrFileTooLarge is returned, wrapped with the sizes, by FetchFile for a
// file larger than its limit (or than the platform lets bots download):
// the caller tells the person, and retrying cannot help.
var ErrFileTooLarge = errors.New("the file is too large")

// Stream is one natively streamed answer.
type Stream interface {
	Append(ctx context.Context, delta string) error
	// Finish ends the stream; final is the complete answer, which the
	// adapter may use to replace what was streamed.
	Finish(ctx context.Context, final Out) (MessageRef, error)
}

// Handler receives normalized inbound events.
type Handler interface {
	HandleMessage(ctx context.Context, m Message) error
	HandleAction(ctx context.Context, a Action) error
	HandleCommand(ctx context.Context, c Command) error
}

// MessageRef points at one message on a platform.
type MessageRef struct {
	Thread Thread
	ID     string // Slack ts, Telegram message_id, Discord snowflake
}

// ButtonStyle hints how a button looks.
type ButtonStyle int

const (
	ButtonDefault ButtonStyle = iota
	ButtonPrimary
	ButtonDanger
)

// MaxButtonData is the longest button payload every platform accepts
// (Telegram's callback_data): payloads carry an id, never state.
const MaxButtonData = 64

// Button is a clickable button under a message.
type Button struct {
	Label string
	Style ButtonStyle
	Data  string // opaque payload, at most MaxButtonData bytes
}

// Out is one outbound message. Text is Markdown: the adapter renders it for
// its platform (bot/format).
type Out struct {
	Text    string
	Buttons []Button
	// ReplyTo is the platform id of the message this answers, where the
	// platform threads by reply (Telegram); adapters may ignore it.
	ReplyTo string
	// Plain asks for the text without formatting (bot/format.Plain): the
	// platform refused the formatted rendering of the same text.
	Plain bool
	// Key names the message for what Delivery sends as a final answer's
	// part without a placeholder before it ("<inbox key>#<part>"), so
	// that a create repeated after an unknown outcome or a crash does not
	// show it twice: an adapter whose platform can make a create
	// idempotent or findable attaches it (Discord: the nonce, with
	// enforce_nonce; Slack: the message metadata, which FindSent looks
	// for). Other adapters ignore it. Empty for every other message.
	Key string
	// Mentions are the people this message calls, so that the platform
	// notifies them: shown at its start, before Text, in order and each
	// once (UniqueMentions), as in "@Ana @Bo standup in 5 minutes". They
	// are people of the platform the message goes to.
	//
	// It is the one place Parley pings anyone on purpose (a reminder
	// calling its people), and it pings exactly them. Every other message
	// pings no one, whoever wrote its text: mention syntax in Text
	// ("<@U1>", "@everyone", a tg://user link) is shown, never notifies.
	// (Telegram's exception: it notifies the owner of any @username in a
	// text, which Parley leaves as written.)
	//
	// Each adapter writes a person its platform's way: Slack <@ID>;
	// Discord <@ID>, with allowed_mentions listing exactly those ids;
	// Telegram a text mention of the numeric ID (a tg://user link, or a
	// text_mention entity in plain text), or @Name when ID is empty and
	// Name a username (Telegram pings those itself); the terminal @Name.
	// Someone the platform cannot mention that way (an ID it could not
	// name) is shown by name and notified by nobody. Send, Edit and
	// SendPrivate render Mentions; a native Stream carries answers and
	// ignores them.
	Mentions []User
}

// WithMentions is text after o's mentions, separated by spaces: how every
// adapter lays out Mentions. write returns a person as the platform
// writes them; it is called once per person of UniqueMentions, in order.
func (o Out) WithMentions(text string, write func(User) string) string {
	mentions := o.UniqueMentions()
	parts := make([]string, 0, len(mentions)+1)
	for _, u := range mentions {
		parts = append(parts, write(u))
	}
	if text != "" {
		parts = append(parts, text)
	}
	return strings.Join(parts, " ")
}

// UniqueMentions is Mentions in order with repeats left out: a person is
// the same by ID, or, both without an ID, by Name (a username, compared
// without its @ and case). Someone with neither is left out: there is
// nothing to show.
func (o Out) UniqueMentions() []User {
	var out []User
	seen := make(map[string]bool, len(o.Mentions))
	for _, u := range o.Mentions {
		key := "id:" + u.ID
		if u.ID == "" {
			key = "name:" + strings.ToLower(strings.TrimPrefix(u.Name, "@"))
			if key == "name:" {
				continue
			}
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, u)
		}
	}
	return out
}

// Placeholder is what a new message of a reply shows until it is edited
// to show its text: answer text only ever reaches a message by an edit. An
// adapter that cannot take back what it showed (a terminal) may show
// nothing for it and wait for the edit.
const Placeholder = "…"

// ErrStreamNotHere is returned, wrapped, by StartStream when this one
// conversation cannot stream natively (Slack streams only in threads): the
// reply uses send and edit, and other conversations keep streaming.
var ErrStreamNotHere = errors.New("native streaming is not available in this conversation")

// ErrFormatRejected is returned, wrapped, by an adapter whose platform
// refused the rendered formatting (Telegram: "can't parse entities") and
// changed nothing. The core then repeats the call with Out.Plain set, so a
// formatting bug never costs an answer.
var ErrFormatRejected = errors.New("the platform rejected the message formatting")

// PaceScope says which messages share an edit budget.
type PaceScope int

const (
	PacePerChat      PaceScope = iota // each chat has its own budget
	PacePerWorkspace                  // one budget per workspace (Slack chat.update)
	PaceGlobal                        // one budget for the whole bot
)

// Capabilities describe what an adapter's platform allows.
type Capabilities struct {
	// MaxLen is the longest message, measured by Measure; SplitAt is the
	// target size of each part of a longer answer (below MaxLen, for
	// headroom).
	MaxLen  int
	SplitAt int
	// Measure returns the size of Markdown text as the platform counts it
	// after rendering; nil counts runes.
	Measure func(markdown string) int
	// EditEvery and EditBurst pace edits within one EditScope.
	EditEvery time.Duration
	EditBurst int
	EditScope PaceScope
	// PaceOf, when set, gives the budget of t's scope where it differs by
	// kind of conversation (Telegram: ~1 edit a second in a private chat,
	// 20 messages a minute in a group); nil means EditEvery and EditBurst
	// everywhere.
	PaceOf func(t Thread) (every time.Duration, burst int)
	// PostEvery and PostBurst, when PostEvery > 0, pace new messages on a
	// budget of their own in each chat, apart from the edits' (Slack:
	// chat.postMessage is limited per channel, chat.update per
	// workspace). Zero: posts and edits share the edit budget.
	PostEvery time.Duration
	PostBurst int
	// Overall, when > 0, is a bot-wide budget on top of each scope's
	// (Telegram: about 30 messages a second across all chats): one call
	// per Overall on average, in bursts of up to a second's worth.
	Overall time.Duration
	// OverallBurst is how many calls the bot-wide budget lets through at
	// once (default: a second's worth). Below the platform's own burst it
	// keeps a margin: calls still in flight when the platform's bucket is
	// full spend the platform's tokens later than ours.
	OverallBurst int
	Buttons      bool
	// Ephemeral is true where SendPrivate shows the message in place; false
	// where it goes by direct message.
	Ephemeral bool
	Typing    bool
	// TypingLasts is how long the platform shows one typing indicator
	// (Telegram ~5 s, Discord ~10 s); delivery repeats it a little sooner.
	// Zero means it lasts until cleared, or is not known.
	TypingLasts time.Duration
}

// Size is markdown's size as the platform counts it after rendering:
// Measure, or runes where the adapter gives none.
func (c Capabilities) Size(markdown string) int {
	if c.Measure != nil {
		return c.Measure(markdown)
	}
	return utf8.RuneCountInString(markdown)
}

// RateLimitError is the one shape of "slow down" every adapter returns,
// wrapped or not, whatever its platform said.
type RateLimitError struct {
	RetryAfter time.Duration
	Err        error
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("rate limited, retry after %s: %v", e.RetryAfter, e.Err)
}

func (e *RateLimitError) Unwrap() error { return e.Err }

// RetryAfter reports whether err is a rate limit, and how long to wait.
func RetryAfter(err error) (time.Duration, bool) {
	if e, ok := errors.AsType[*RateLimitError](err); ok {
		return e.RetryAfter, true
	}
	return 0, false
}
