package bot

import (
	"context"
	"github.com/parleybot/parley/chat"
	"strings"
)

// HandleCommand runs a shared command and answers the caller privately:
// in place where the platform can (ephemeral), else by direct message with
// a pointer in place. Memory is never shown in a shared channel.
func (r *Router) HandleCommand(ctx context.Context, c chat.Command) error {
	rec := inboxRecord{Kind: kindCommand}
	if isKBAdd(c) {
		job := newKBAddJob(c)
		rec = inboxRecord{Kind: kindKBAdd, KBAdd: &job}
	}
	done, err := r.acceptOnce(ctx, c.Key, c.Thread.Platform, rec)
	if done == nil {
		return err // a redelivery, or the inbox failed
	}
	if !r.cfg.Access.Allowed(c.User, c.Thread) {
		defer done()
		return r.refuse(ctx, chat.Message{Key: c.Key, Thread: c.Thread, User: c.User, Direct: c.Direct})
	}
	if c.Direct {
		r.privateOpened(c.User) // "/start held" from the deep link, or any command
	}
	if rec.KBAdd != nil {
		base := r.base
		r.wg.Go(func() { r.kbAdd(base, *rec.KBAdd, done) })
		return nil
	}
	defer done()
	e, ok := findCommand(c.Name)
	if !ok {
		return r.answerPrivately(ctx, c, chat.Out{Text: "Unknown command /" + c.Name + ": try /help"})
	}
	return e.run(r, ctx, c)
}

// The commands' handlers (registry.go lists them). Each answers privately.

func (r *Router) cmdStop(ctx context.Context, c chat.Command) error {
	stopped, elsewhere, err := r.stop(ctx, c.Thread, c.User)
	if err != nil {
		return err
	}
	text := "Nothing is running here."
	switch {
	case stopped:
		text = "Stopped."
	case elsewhere:
		// Another replica runs it and stops it within a second or so.
		text = "Stopping."
	}
	return r.answerPrivately(ctx, c, chat.Out{Text: text})
}

func (r *Router) cmdStatus(ctx context.Context, c chat.Command) error {
	s, err := r.status(ctx, c)
	if err != nil {
		return err
	}
	return r.answerPrivately(ctx, c, chat.Out{Text: s})
}

func (r *Router) cmdHelp(ctx context.Context, c chat.Command) error {
	return r.answerPrivately(ctx, c, chat.Out{Text: HelpText()})
}

func (r *Router) cmdMemory(ctx context.Context, c chat.Command) error {
	if len(c.Args) == 1 && strings.EqualFold(c.Args[0], "clear") {
		return r.askClearMemory(ctx, c)
	}
	if len(c.Args) > 0 {
		// Discord declares "team-forget" as a subcommand of its own.
		if sub, ok := strings.CutPrefix(strings.ToLower(c.Args[0]), "team"); ok && (sub == "" || sub == "-forget") {
			rest := c.Args[1:]
			if sub != "" {
				rest = append([]string{"forget"}, rest...)
			}
			return r.cmdTeam(ctx, c, rest)
		}
	}
	return r.cmdShared(ctx, c)
}

// cmdShared runs a command the shared commands answer (bot.go).
func (r *Router) cmdShared(ctx context.Context, c chat.Command) error {
	text, err := r.cfg.Commands.Command(ctx, c)
	if err != nil {
		text = err.Error()
	}
	return r.answerPrivately(ctx, c, chat.Out{Text: text})
}

func (r *Router) answerPrivately(ctx context.Context, c chat.Command, out chat.Out) error {
	return r.cfg.Outbound.Answer(ctx, c, out)
}

// HandleAction routes a button click to the approvals, which answer the
// clicker; without approvals every click is answered "no longer valid".
func (r *Router) HandleAction(ctx context.Context, a chat.Action) error {
	done, err := r.acceptOnce(ctx, a.Key, a.Thread.Platform, inboxRecord{Kind: kindAction})
	if done == nil {
		return err // a redelivery, or the inbox failed
	}
	defer done()
	e, ok := findAction(a.Data)
	if !ok {
		return r.cfg.Outbound.Tell(ctx, a, msgButtonInvalid)
	}
	return e.handle(r, ctx, a)
}

// acceptOnce records a command or click under key, once, ever. done marks
// it handled; it is nil when the event was seen before or could not be
// recorded (err says which). A command or click without a key (the
// terminal's) is not recorded.
func (r *Router) acceptOnce(ctx context.Context, key, platform string, rec inboxRecord) (done func(), err error) {
	if key == "" {
		return func() {}, nil
	}
	payload, err := encodeInbox(rec)
	if err != nil {
		return nil, err
	}
	accepted, err := r.cfg.Inbox.Accept(ctx, key, platform, payload)
	if err != nil || !accepted {
		return nil, err
	}
	// done may run after the event's handler returned (/kb add): the
	// record is closed whatever became of the event's context.
	ctx = context.WithoutCancel(ctx)
	return func() {
		if err := r.cfg.Inbox.MarkDone(ctx, key); err != nil {
			r.log.Error("mark inbox done", "key", key, "kind", rec.Kind, "err", err)
		}
	}, nil
}

// msgButtonInvalid answers a click on a button Parley does not know (a
// forged or outdated payload).
const msgButtonInvalid = "This button is no longer valid."

// approvalClick hands an approval button's click to the approvals, which
// answer the clicker themselves, refusals included.
func (r *Router) approvalClick(ctx context.Context, a chat.Action) error {
	if r.approvals == nil {
		return r.cfg.Outbound.Tell(ctx, a, msgButtonInvalid)
	}
	_, err := r.approvals.HandleAction(ctx, a)
	return err
}

// privateOpened sends u what waited for a private chat with them
// (outbound's held messages), now that they wrote to Parley privately. It
// runs beside the message, which it never delays.
func (r *Router) privateOpened(u chat.User) {
	base := r.base
	r.wg.Go(func() {
		if err := r.cfg.Outbound.Release(base, u); err != nil && base.Err() == nil {
			r.log.Warn("send held private messages", "user", u.Key(), "err", err)
		}
	})
}
