package outbound

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/parleybot/parley/chat"
)

// A private message the platform will not deliver yet (chat.ErrNoPrivateChat:
// a Telegram bot cannot open a private chat, a Discord user may close
// direct messages) is held, not lost and not explained in public: the
// platform's error never reaches the conversation. The person is told
// there — mentioned, since nothing private reaches them — how to open a
// private chat (a deep link where the platform has one, chat.PrivateLinker),
// and what was held is sent the moment they write to Parley privately
// (Release). What it was for stays pending meanwhile: a memory proposal
// keeps its Save button, a private approval waits until it expires.

// HeldFor is how long a held private message waits for its person.
const HeldFor = 24 * time.Hour

// maxHeld bounds the messages held for one person; the oldest go first.
const maxHeld = 20

// HeldStart is the start parameter of the deep link: the private chat
// opens with "/start held", which releases what was held.
const HeldStart = "held"

// heldMessage is one private message waiting for its person.
type heldMessage struct {
	Thread  chat.Thread `json:"thread"`
	Out     chat.Out    `json:"out"`
	Expires time.Time   `json:"expires"`
}

func heldKey(u chat.User) string { return "private-held:" + u.Key() }

// held reads what waits for u, dropping what has expired.
func (o *Outbound) held(ctx context.Context, u chat.User) ([]heldMessage, error) {
	v, ok, err := o.keep.Get(ctx, heldKey(u))
	if err != nil || !ok || v == "" {
		return nil, err
	}
	var all, live []heldMessage
	if err := json.Unmarshal([]byte(v), &all); err != nil {
		o.log.Warn("held private messages unreadable: dropped", "user", u.Key(), "err", err)
		return nil, nil
	}
	now := o.now()
	for _, h := range all {
		if now.Before(h.Expires) {
			live = append(live, h)
		}
	}
	return live, nil
}

func (o *Outbound) setHeld(ctx context.Context, u chat.User, hs []heldMessage) error {
	if len(hs) == 0 {
		return o.keep.Set(ctx, heldKey(u), "")
	}
	v, err := json.Marshal(hs)
	if err != nil {
		return err
	}
	return o.keep.Set(ctx, heldKey(u), string(v))
}

// hold keeps out for u and, the first time something waits for u, tells u
// in t how to open a private chat.
func (o *Outbound) hold(ctx context.Context, ol *outlet, t chat.Thread, u chat.User, out chat.Out) error {
	o.heldMu.Lock()
	hs, err := o.held(ctx, u)
	if err == nil {
		first := len(hs) == 0
		hs = append(hs, heldMessage{Thread: t, Out: out, Expires: o.now().Add(HeldFor)})
		if len(hs) > maxHeld {
			hs = hs[len(hs)-maxHeld:]
		}
		err = o.setHeld(ctx, u, hs)
		if err == nil && !first {
			o.heldMu.Unlock()
			return nil // told already
		}
	}
	o.heldMu.Unlock()
	if err != nil {
		return fmt.Errorf("outbound: hold a private message for %s: %w", u.Key(), err)
	}
	notice := chat.Out{Text: heldNotice(ol.adapter), Mentions: []chat.User{u}}
	if t.ID == "" && t.Chat == "" {
		return errors.New("outbound: no conversation to say where the private message waits")
	}
	return o.call(ctx, ol, ol.pacer.PostKey(t), notice, func(out chat.Out) error {
		_, err := ol.adapter.Send(ctx, t, out)
		return err
	})
}

// heldNotice tells someone how to get what waits for them.
func heldNotice(a chat.Adapter) string {
	const what = "I have something for you that only you should see, and I cannot message you privately yet. "
	if l, ok := a.(chat.PrivateLinker); ok {
		if link := l.PrivateLink(HeldStart); link != "" {
			return what + "Open a private chat with me here and press Start: " + link + " (it waits for a day)."
		}
	}
	return what + "Allow direct messages from me, or open a private chat with me and say hi; I will send it there (it waits for a day)."
}

// Release sends u what was held for them, now that they wrote to Parley
// privately. What still cannot be delivered stays held.
func (o *Outbound) Release(ctx context.Context, u chat.User) error {
	if o.keep == nil {
		return nil
	}
	o.heldMu.Lock()
	defer o.heldMu.Unlock()
	hs, err := o.held(ctx, u)
	if err != nil || len(hs) == 0 {
		return err
	}
	var left []heldMessage
	var errs []error
	for _, h := range hs {
		ol, err := o.outlet(h.Thread.Platform)
		if err == nil {
			err = o.call(ctx, ol, ol.pacer.PostKey(h.Thread), h.Out, func(out chat.Out) error {
				return ol.adapter.SendPrivate(ctx, h.Thread, u, out)
			})
		}
		if err != nil {
			left = append(left, h)
			errs = append(errs, err)
		}
	}
	if err := o.setHeld(ctx, u, left); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
