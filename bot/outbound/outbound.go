// Package outbound is the one way Parley's messages leave: per adapter one
// Pacer (token buckets as the platform limits them, finals first), answers
// through a Delivery (stream, paced edits, a guaranteed final, split past
// the platform's length, never twice), and everything else through
// Outbound's Post, Edit, Private, Answer, Tell and Home, with the plain-text
// fallback when a platform refuses the formatting.
package outbound

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/clock"
)

// Outbound is the one way Parley shows anything on a platform. Answers go
// through a Delivery (streaming, splitting, the final retried until shown);
// everything else — approval prompts and decisions, command answers,
// refusals, notices, answers to clicks — through Post, Edit, Private, Answer
// and Tell here. Both draw from the same Pacer per adapter, so a notice
// never spends a budget an answer is counting on, and both repeat a call
// the platform refused for its formatting as plain text.
type Outbound struct {
	outlets map[string]*outlet
	now     func() time.Time
	sleep   func(ctx context.Context, d time.Duration) error
	log     *slog.Logger
	// keep holds private messages waiting for their person (held.go);
	// heldMu orders this process's reads and writes of them.
	keep   chat.KV
	heldMu sync.Mutex
}

// outlet is one platform's way out.
type outlet struct {
	adapter  chat.Adapter
	pacer    *Pacer
	delivery *Delivery // nil without an Outbox: Begin is refused
}

// OutboundConfig configures an Outbound.
type Config struct {
	Adapters []chat.Adapter
	// Outbox keeps each reply's delivery state; nil refuses Begin (a core
	// that only posts notices, in tests).
	Outbox Outbox
	// Keep is where private messages wait for a person the platform
	// cannot reach privately yet (held.go); nil: nothing waits, and such
	// a message fails.
	Keep chat.KV
	// Now and Sleep are the clock (defaults: time.Now and a timer).
	Now    func() time.Time
	Sleep  func(ctx context.Context, d time.Duration) error
	Logger *slog.Logger
}

// NewOutbound returns the outbound path of adapters: one Pacer and one
// Delivery each.
func New(cfg Config) (*Outbound, error) {
	cfg.Now, cfg.Sleep = clock.Or(cfg.Now, cfg.Sleep)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	o := &Outbound{outlets: map[string]*outlet{}, now: cfg.Now, sleep: cfg.Sleep, log: cfg.Logger, keep: cfg.Keep}
	for _, a := range cfg.Adapters {
		p := a.Platform()
		if _, dup := o.outlets[p]; dup {
			return nil, fmt.Errorf("outbound: two adapters for %s", p)
		}
		pacer := NewPacer(PacerConfig{Platform: p, Capabilities: a.Capabilities(), Now: cfg.Now, Sleep: cfg.Sleep})
		ol := &outlet{adapter: a, pacer: pacer}
		if cfg.Outbox != nil {
			d, err := NewDelivery(DeliveryConfig{
				Adapter: a, Outbox: cfg.Outbox, Pacer: pacer, Split: format.Split,
				Now: cfg.Now, Sleep: cfg.Sleep, Logger: cfg.Logger.With("platform", p),
			})
			if err != nil {
				return nil, fmt.Errorf("%s delivery: %w", p, err)
			}
			ol.delivery = d
		}
		o.outlets[p] = ol
	}
	return o, nil
}

// Adapter returns the adapter of platform.
func (o *Outbound) Adapter(platform string) (chat.Adapter, bool) {
	ol, ok := o.outlets[platform]
	if !ok {
		return nil, false
	}
	return ol.adapter, true
}

func (o *Outbound) outlet(platform string) (*outlet, error) {
	ol, ok := o.outlets[platform]
	if !ok {
		return nil, fmt.Errorf("outbound: no adapter for platform %q", platform)
	}
	return ol, nil
}

// Begin opens the reply to the inbound event inboxKey (Delivery.Begin).
func (o *Outbound) Begin(ctx context.Context, inboxKey, sessionID string, t chat.Thread, u chat.User, replyTo string) (Reply, error) {
	ol, err := o.outlet(t.Platform)
	if err != nil {
		return nil, err
	}
	if ol.delivery == nil {
		return nil, errors.New("outbound: no outbox to deliver replies with")
	}
	w, err := ol.delivery.Begin(ctx, inboxKey, sessionID, t, u, replyTo)
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return w, nil
}

// Rate limits a single outbound call waits out before it gives up: a
// notice is worth a short wait, not the minutes an answer is.
const (
	noticeAttempts = 4
	maxNoticeWait  = 30 * time.Second
)

// Post sends out as a new message in t, paced on t's budget for new
// messages.
func (o *Outbound) Post(ctx context.Context, t chat.Thread, out chat.Out) (chat.MessageRef, error) {
	return o.PostLatest(ctx, t, func() chat.Out { return out })
}

// PostLatest is Post of what latest returns when the budget allows the
// call: a message whose content changes while it waits (a task's
// checklist) goes out as it is then, not as it was.
func (o *Outbound) PostLatest(ctx context.Context, t chat.Thread, latest func() chat.Out) (chat.MessageRef, error) {
	ol, err := o.outlet(t.Platform)
	if err != nil {
		return chat.MessageRef{}, err
	}
	var ref chat.MessageRef
	err = o.callLatest(ctx, ol, ol.pacer.PostKey(t), latest, func(out chat.Out) (err error) {
		ref, err = ol.adapter.Send(ctx, t, out)
		return err
	})
	return ref, err
}

// Edit replaces what the message ref shows, paced on its chat's budget.
func (o *Outbound) Edit(ctx context.Context, ref chat.MessageRef, out chat.Out) error {
	return o.EditLatest(ctx, ref, func() chat.Out { return out })
}

// EditLatest is Edit of what latest returns when the budget allows the
// call (PostLatest).
func (o *Outbound) EditLatest(ctx context.Context, ref chat.MessageRef, latest func() chat.Out) error {
	ol, err := o.outlet(ref.Thread.Platform)
	if err != nil {
		return err
	}
	return o.callLatest(ctx, ol, ol.pacer.Key(ref.Thread), latest, func(out chat.Out) error {
		return ol.adapter.Edit(ctx, ref, out)
	})
}

// Private shows out to u alone (Adapter.SendPrivate), paced like a new
// message in t. Where the platform has no private chat with u yet, out
// is held for u and u is told in t how to open one (held.go); that is no
// error.
func (o *Outbound) Private(ctx context.Context, t chat.Thread, u chat.User, out chat.Out) error {
	_, err := o.private(ctx, t, u, out)
	return err
}

// private is Private, saying whether out was held rather than shown.
func (o *Outbound) private(ctx context.Context, t chat.Thread, u chat.User, out chat.Out) (held bool, err error) {
	platform := t.Platform
	if platform == "" {
		platform = u.Platform
	}
	ol, err := o.outlet(platform)
	if err != nil {
		return false, err
	}
	err = o.call(ctx, ol, ol.pacer.PostKey(t), out, func(out chat.Out) error {
		return ol.adapter.SendPrivate(ctx, t, u, out)
	})
	if errors.Is(err, chat.ErrNoPrivateChat) && o.keep != nil {
		o.log.Info("private message held until its person opens a private chat", "user", u.Key(), "err", err)
		return true, o.hold(ctx, ol, t, u, out)
	}
	return false, err
}

// Answer answers a command's caller privately: in place where the
// platform can (the command's own Respond, or an ephemeral message),
// otherwise by direct message with a pointer where they asked. Memory is
// never shown in a shared channel this way.
func (o *Outbound) Answer(ctx context.Context, c chat.Command, out chat.Out) error {
	ol, err := o.outlet(c.Thread.Platform)
	if err != nil {
		return err
	}
	if c.Respond != nil {
		return o.call(ctx, ol, ol.pacer.PostKey(c.Thread), out, func(out chat.Out) error { return c.Respond(ctx, out) })
	}
	held, err := o.private(ctx, c.Thread, c.User, out)
	if err != nil {
		// The platform's words stay in the log: they may say more about
		// the person than the conversation should hear.
		o.log.Warn("private answer not delivered", "user", c.User.Key(), "command", c.Name, "err", err)
		_, serr := o.Post(ctx, c.Thread, chat.Out{Text: "I could not message you privately. Open a direct chat with me and send the command there."})
		return serr
	}
	if !held && !ol.adapter.Capabilities().Ephemeral && !c.Direct {
		// The answer went to a DM: say so where the person asked.
		_, err := o.Post(ctx, c.Thread, chat.Out{Text: "I sent you the answer in a direct message."})
		return err
	}
	return nil
}

// Tell answers the person who clicked a button, alone: in place where the
// platform can (ephemeral, callback alert), otherwise privately.
func (o *Outbound) Tell(ctx context.Context, a chat.Action, text string) error {
	platform := a.Thread.Platform
	if platform == "" {
		platform = a.User.Platform
	}
	ol, err := o.outlet(platform)
	if err != nil {
		return err
	}
	if a.Respond != nil {
		return o.call(ctx, ol, ol.pacer.PostKey(a.Thread), chat.Out{Text: text}, func(out chat.Out) error {
			return a.Respond(ctx, out.Text)
		})
	}
	return o.Private(ctx, a.Thread, a.User, chat.Out{Text: text})
}

// ErrNoHome is returned, wrapped, by Home for a platform whose adapter has
// no page of its own for each person (chat.HomePublisher).
var ErrNoHome = errors.New("the platform has no home page for a person")

// Home shows home on u's own page of the app (chat.HomePublisher), paced
// like a new message in a chat of u's own on space's budget: a rate limit
// is waited out a few times, any other error returned at once.
func (o *Outbound) Home(ctx context.Context, space string, u chat.User, home chat.Home) error {
	ol, err := o.outlet(u.Platform)
	if err != nil {
		return err
	}
	hp, ok := ol.adapter.(chat.HomePublisher)
	if !ok {
		return fmt.Errorf("outbound: %s: %w", u.Platform, ErrNoHome)
	}
	// The page is no conversation: it draws on a bucket of its own, so
	// opening it never delays an answer in a chat.
	t := chat.Thread{Platform: u.Platform, Space: space, Chat: "home:" + u.ID}
	return o.call(ctx, ol, ol.pacer.PostKey(t), chat.Out{}, func(chat.Out) error {
		return hp.PublishHome(ctx, u, home)
	})
}

// call makes one platform call at key's pace: a rate limit penalizes the
// bucket (everyone drawing from it waits) and is waited out a few times
// within reason; a formatting refusal is repeated as plain text; any other
// error is returned at once, since the call may have taken effect.
func (o *Outbound) call(ctx context.Context, ol *outlet, key PaceKey, out chat.Out, send func(chat.Out) error) error {
	return o.callLatest(ctx, ol, key, func() chat.Out { return out }, send)
}

// callLatest is call of what latest returns after each wait.
func (o *Outbound) callLatest(ctx context.Context, ol *outlet, key PaceKey, latest func() chat.Out, send func(chat.Out) error) error {
	var err error
	plain := false // the platform refused the formatting once: stay plain
	for attempt := 1; ; attempt++ {
		if werr := ol.pacer.Wait(ctx, key); werr != nil {
			if err == nil {
				return werr
			}
			return fmt.Errorf("%w (while waiting out: %w)", werr, err)
		}
		out := latest()
		out.Plain = out.Plain || plain
		err = send(out)
		if errors.Is(err, chat.ErrFormatRejected) && !out.Plain {
			out.Plain, plain = true, true
			err = send(out)
		}
		wait, limited := chat.RetryAfter(err)
		if !limited {
			return err
		}
		ol.pacer.Penalize(key, wait)
		if attempt == noticeAttempts || wait > maxNoticeWait {
			return err
		}
		o.log.Debug("outbound call rate limited", "platform", ol.adapter.Platform(), "retry_after", wait)
	}
}

// SetShare splits every platform's bot-wide budgets n ways (Pacer.SetShare).
func (o *Outbound) SetShare(n int) {
	for _, ol := range o.outlets {
		ol.pacer.SetShare(n)
		if st, ok := ol.adapter.(chat.ShareTaker); ok {
			st.SetShare(n)
		}
	}
}

// Rejoin has every platform's shared budgets start over without burst
// credit (Pacer.Rejoin).
func (o *Outbound) Rejoin() {
	for _, ol := range o.outlets {
		ol.pacer.Rejoin()
	}
}
