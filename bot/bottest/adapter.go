package bottest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/parleybot/parley/chat"
)

// Errors the fake platform answers with.
var (
	// ErrTooLong: the text is longer than Capabilities.MaxLen.
	ErrTooLong = errors.New("bottest: message too long")
	// ErrNotFound: Edit of a message that does not exist.
	ErrNotFound = errors.New("bottest: message not found")
	// ErrServer is a 5xx, for fault injection.
	ErrServer = errors.New("bottest: 500 internal server error")
	// ErrEmpty: the text is empty, which platforms refuse.
	ErrEmpty = errors.New("bottest: message text is empty")
)

// RateLimited returns the error a platform's 429 becomes: a
// *chat.RateLimitError asking to wait d.
func RateLimited(d time.Duration) error {
	return &chat.RateLimitError{RetryAfter: d, Err: errors.New("bottest: 429 too many requests")}
}

// Op names an Adapter method, for call records and fault injection.
type Op string

const (
	OpSend        Op = "send"
	OpEdit        Op = "edit"
	OpSendPrivate Op = "send_private"
	OpTyping      Op = "typing"
)

// Config configures an Adapter. The zero value is a platform named "fake"
// with DefaultCapabilities, its limits enforced, on the wall clock.
type Config struct {
	Platform     string            // default "fake"
	Capabilities chat.Capabilities // no MaxLen, EditEvery or Measure: DefaultCapabilities()
	// LimitEvery and LimitBurst are the platform's own budget for Send and
	// Edit together, per Capabilities.EditScope; zero takes EditEvery and
	// EditBurst, a negative LimitEvery enforces no rate limit.
	LimitEvery time.Duration
	LimitBurst int
	// Now stamps every call (default time.Now) and drives the limits.
	Now func() time.Time
	// Seed seeds the pseudo-random choice of FailRate.
	Seed uint64
	// DiscardCalls keeps messages and Count, not the call log, so that a
	// long benchmark does not measure the log's growth.
	DiscardCalls bool
	// KeyedSends makes a Send with the Out.Key of an earlier message
	// return that message and create nothing (Discord's nonce with
	// enforce_nonce); FindsSent makes FindSent find messages by their
	// Out.Key (Slack's metadata). Without either the fake is Telegram:
	// a repeated create is a second message, and FindSent finds nothing.
	KeyedSends bool
	FindsSent  bool
}

// DefaultCapabilities are Telegram-like: 4,000 characters, parts of 3,900,
// one edit per second per chat.
func DefaultCapabilities() chat.Capabilities {
	return chat.Capabilities{
		MaxLen: 4000, SplitAt: 3900,
		EditEvery: time.Second, EditBurst: 1, EditScope: chat.PacePerChat,
		Buttons: true, Typing: true,
	}
}

// Call is one recorded Adapter call.
type Call struct {
	Op     Op
	At     time.Time
	Thread chat.Thread
	Ref    chat.MessageRef // the message sent or edited (zero if none)
	Out    chat.Out
	User   chat.User // SendPrivate's recipient
	Err    error     // what the call returned
	// Applied is true when the call took effect on the platform (even if
	// it then returned an error); NoOp when an applied edit left the text
	// as it was.
	Applied bool
	NoOp    bool
}

// Msg is one message the bot posted, as the platform shows it now.
type Msg struct {
	Ref      chat.MessageRef
	Text     string
	Buttons  []chat.Button
	ReplyTo  string
	SentAt   time.Time
	EditedAt time.Time // zero if never edited
	Edits    int
	Key      string // the Out.Key it was sent with
}

// Adapter is the fake platform. Safe for concurrent use.
type Adapter struct {
	cfg   Config
	caps  chat.Capabilities
	every time.Duration
	burst int

	mu          sync.Mutex
	rng         *rand.Rand
	nextID      int
	msgs        map[string]*Msg
	order       []string // message ids in send order
	calls       []Call
	limiters    map[string]*rate.Limiter
	faults      map[Op]*faultPlan
	rateLimited int
	counts      map[Op]int // applied calls

	handler   chat.Handler
	ready     chan struct{}
	readyOnce sync.Once
	left      map[string]bool // "chat|user": no longer a member (Leave)
}

var (
	_ chat.Adapter       = (*Adapter)(nil)
	_ chat.SentFinder    = (*Adapter)(nil)
	_ chat.MemberChecker = (*Adapter)(nil)
)

// Leave makes user no longer a member of chat: everyone else is one of
// every conversation on the fake.
func (a *Adapter) Leave(chatID, userID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.left == nil {
		a.left = map[string]bool{}
	}
	a.left[chatID+"|"+userID] = true
}

// IsMember is true unless userID left t's chat (chat.MemberChecker).
func (a *Adapter) IsMember(_ context.Context, t chat.Thread, userID string) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return userID != "" && !a.left[t.Chat+"|"+userID], nil
}

// New returns a fake platform.
func New(cfg Config) *Adapter {
	if cfg.Platform == "" {
		cfg.Platform = "fake"
	}
	if cfg.Capabilities.MaxLen == 0 && cfg.Capabilities.EditEvery == 0 && cfg.Capabilities.Measure == nil {
		cfg.Capabilities = DefaultCapabilities()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	a := &Adapter{
		cfg:      cfg,
		caps:     cfg.Capabilities,
		every:    cfg.LimitEvery,
		burst:    cfg.LimitBurst,
		rng:      rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		msgs:     map[string]*Msg{},
		limiters: map[string]*rate.Limiter{},
		faults:   map[Op]*faultPlan{},
		counts:   map[Op]int{},
		ready:    make(chan struct{}),
	}
	if a.every == 0 {
		a.every = cfg.Capabilities.EditEvery
	}
	if a.burst <= 0 {
		a.burst = max(cfg.Capabilities.EditBurst, 1)
	}
	return a
}

func (a *Adapter) Platform() string                { return a.cfg.Platform }
func (a *Adapter) Capabilities() chat.Capabilities { return a.caps }

// Run hands inbound events injected with InjectMessage, InjectAction and
// InjectCommand to h until ctx ends.
func (a *Adapter) Run(ctx context.Context, h chat.Handler) error {
	a.mu.Lock()
	a.handler = h
	a.mu.Unlock()
	a.readyOnce.Do(func() { close(a.ready) })
	<-ctx.Done()
	return nil
}

// Send posts out in t.
func (a *Adapter) Send(ctx context.Context, t chat.Thread, out chat.Out) (chat.MessageRef, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := Call{Op: OpSend, At: a.cfg.Now(), Thread: t, Out: out}
	if err := a.refuse(ctx, &c, t, out.Text); err != nil {
		return chat.MessageRef{}, a.record(c, err)
	}
	if m := a.keyed(t, out.Key); m != nil && a.cfg.KeyedSends {
		// The platform returns the message the key created.
		c.Ref = m.Ref
		return c.Ref, a.record(c, nil)
	}
	a.nextID++
	id := strconv.Itoa(a.nextID)
	c.Ref = chat.MessageRef{Thread: t, ID: id}
	a.msgs[id] = &Msg{Ref: c.Ref, Text: out.Text, Buttons: out.Buttons, ReplyTo: out.ReplyTo, SentAt: c.At, Key: out.Key}
	a.order = append(a.order, id)
	c.Applied = true
	if err, keepRef := a.failAfter(OpSend); err != nil {
		// The message exists; the caller hears of an error (a timeout
		// after the platform processed the request, an undecodable
		// answer): the classic duplicate trap.
		ref := chat.MessageRef{}
		if keepRef {
			ref = c.Ref
		}
		return ref, a.record(c, err)
	}
	return c.Ref, a.record(c, nil)
}

// Edit replaces the text and buttons of a message.
func (a *Adapter) Edit(ctx context.Context, ref chat.MessageRef, out chat.Out) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := Call{Op: OpEdit, At: a.cfg.Now(), Thread: ref.Thread, Ref: ref, Out: out}
	if err := a.refuse(ctx, &c, ref.Thread, out.Text); err != nil {
		return a.record(c, err)
	}
	m, ok := a.msgs[ref.ID]
	if !ok || m.Ref.Thread != ref.Thread {
		return a.record(c, fmt.Errorf("%w: %s", ErrNotFound, ref.ID))
	}
	c.NoOp = m.Text == out.Text && fmt.Sprint(m.Buttons) == fmt.Sprint(out.Buttons)
	m.Text, m.Buttons, m.EditedAt = out.Text, out.Buttons, c.At
	m.Edits++
	c.Applied = true
	if err, _ := a.failAfter(OpEdit); err != nil {
		return a.record(c, err)
	}
	return a.record(c, nil)
}

// SendPrivate records a private message to u; it is not rate limited.
func (a *Adapter) SendPrivate(ctx context.Context, t chat.Thread, u chat.User, out chat.Out) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := Call{Op: OpSendPrivate, At: a.cfg.Now(), Thread: t, User: u, Out: out}
	if err := a.injected(ctx, OpSendPrivate); err != nil {
		return a.record(c, err)
	}
	if err := a.checkLen(out.Text); err != nil {
		return a.record(c, err)
	}
	c.Applied = true
	return a.record(c, nil)
}

// Typing records a typing indicator; it is not rate limited.
func (a *Adapter) Typing(ctx context.Context, t chat.Thread) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := Call{Op: OpTyping, At: a.cfg.Now(), Thread: t}
	if err := a.injected(ctx, OpTyping); err != nil {
		return a.record(c, err)
	}
	c.Applied = true
	return a.record(c, nil)
}

// refuse applies, in order, what a platform checks before it acts on a
// send or an edit: injected faults, the rate limit, the length limit.
func (a *Adapter) refuse(ctx context.Context, c *Call, t chat.Thread, text string) error {
	if err := a.injected(ctx, c.Op); err != nil {
		return err
	}
	if err := a.limit(t, c.At); err != nil {
		return err
	}
	return a.checkLen(text)
}

func (a *Adapter) record(c Call, err error) error {
	if c.Applied {
		a.counts[c.Op]++
	}
	if !a.cfg.DiscardCalls {
		c.Err = err
		a.calls = append(a.calls, c)
	}
	return err
}

func (a *Adapter) checkLen(text string) error {
	if text == "" {
		return ErrEmpty
	}
	if a.caps.MaxLen <= 0 {
		return nil
	}
	if n := a.measure(text); n > a.caps.MaxLen {
		return fmt.Errorf("%w: %d > %d", ErrTooLong, n, a.caps.MaxLen)
	}
	return nil
}

func (a *Adapter) measure(text string) int { return a.caps.Size(text) }

// limit enforces the platform's budget on sends and edits, with its own
// token bucket per scope: a call over budget is refused with a retry-after
// and costs nothing, as on the real platforms.
func (a *Adapter) limit(t chat.Thread, now time.Time) error {
	if a.every <= 0 {
		return nil
	}
	var key string
	switch a.caps.EditScope {
	case chat.PacePerWorkspace:
		key = "space:" + t.Space
	case chat.PaceGlobal:
		key = "global"
	default:
		key = "chat:" + t.Space + "/" + t.Chat
	}
	lim, ok := a.limiters[key]
	if !ok {
		lim = rate.NewLimiter(rate.Every(a.every), a.burst)
		a.limiters[key] = lim
	}
	// A hair of tolerance: the pacer and this bucket compute the same
	// instants in floating point, and a platform's clock is not that
	// precise either.
	const slack = 1e-6
	if tokens := lim.TokensAt(now); tokens < 1-slack {
		wait := time.Duration((1 - tokens) / float64(lim.Limit()) * float64(time.Second))
		a.rateLimited++
		return RateLimited(wait.Truncate(time.Millisecond) + time.Millisecond)
	}
	lim.ReserveN(now, 1)
	return nil
}

// keyed returns the message sent in t with key, or nil. Callers hold a.mu.
func (a *Adapter) keyed(t chat.Thread, key string) *Msg {
	if key == "" {
		return nil
	}
	for _, id := range a.order {
		if m := a.msgs[id]; m.Key == key && m.Ref.Thread == t {
			return m
		}
	}
	return nil
}

// FindSent finds the message sent in t with Out.Key key, when
// Config.FindsSent; otherwise it finds nothing, as on a platform that
// cannot look (after is not used: keys are unique).
func (a *Adapter) FindSent(_ context.Context, t chat.Thread, key, _ string) (chat.MessageRef, bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.cfg.FindsSent {
		return chat.MessageRef{}, false, nil
	}
	if m := a.keyed(t, key); m != nil {
		return m.Ref, true, nil
	}
	return chat.MessageRef{}, false, nil
}
