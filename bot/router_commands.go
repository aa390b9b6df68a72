package bot

import (
	"context"
	"fmt"
	"strings"
)

// HandleCommand runs a shared command and answers the caller privately:
// in place where the platform can (ephemeral), else by direct message with
// a pointer in place. Memory is never shown in a shared channel.
func (r *Router) HandleCommand(ctx context.Context, c Command) error {
	if c.Key != "" {
		accepted, err := r.cfg.Inbox.Accept(ctx, c.Key, c.Thread.Platform, nil)
		if err != nil || !accepted {
			return err
		}
		defer func() {
			if err := r.cfg.Inbox.MarkDone(ctx, c.Key); err != nil {
				r.log.Error("mark command done", "key", c.Key, "err", err)
			}
		}()
	}
	if !r.cfg.Access.Allowed(c.User, c.Thread) {
		return r.refuse(ctx, Message{Key: c.Key, Thread: c.Thread, User: c.User, Direct: c.Direct})
	}
	var text string
	switch c.Name {
	case "stop":
		stopped, err := r.stop(ctx, c.Thread)
		if err != nil {
			return err
		}
		text = "Nothing is running here."
		if stopped {
			text = "Stopped."
		}
	case "status":
		s, err := r.status(ctx, c.Thread)
		if err != nil {
			return err
		}
		text = s
	case "memory":
		if len(c.Args) == 1 && strings.EqualFold(c.Args[0], "clear") {
			return r.askClearMemory(ctx, c)
		}
		out, err := r.cfg.Commands.Command(ctx, c)
		if err != nil {
			out = err.Error()
		}
		text = out
	case "help", "start":
		text = Help + "\n  /stop              stop the answer being written here\n  /status            model, context use and session size"
	default:
		out, err := r.cfg.Commands.Command(ctx, c)
		if err != nil {
			out = err.Error()
		}
		text = out
	}
	return r.answerPrivately(ctx, c, Out{Text: text})
}

func (r *Router) answerPrivately(ctx context.Context, c Command, out Out) error {
	if c.Respond != nil {
		return c.Respond(ctx, out)
	}
	a, ok := r.adapters[c.Thread.Platform]
	if !ok {
		return fmt.Errorf("no adapter for %s", c.Thread.Platform)
	}
	if err := a.SendPrivate(ctx, c.Thread, c.User, out); err != nil {
		_, serr := a.Send(ctx, c.Thread, Out{Text: "I could not message you privately (" + err.Error() +
			"). Open a direct chat with me and send the command there."})
		return serr
	}
	if !a.Capabilities().Ephemeral && !c.Direct {
		// The answer went to a DM: say so where the person asked.
		_, err := a.Send(ctx, c.Thread, Out{Text: "I sent you the answer in a direct message."})
		return err
	}
	return nil
}

// HandleAction routes a button click to the approvals, which answer the
// clicker; without approvals every click is answered "no longer valid".
func (r *Router) HandleAction(ctx context.Context, a Action) error {
	if a.Key != "" {
		accepted, err := r.cfg.Inbox.Accept(ctx, a.Key, a.Thread.Platform, nil)
		if err != nil || !accepted {
			return err
		}
		defer func() {
			if err := r.cfg.Inbox.MarkDone(ctx, a.Key); err != nil {
				r.log.Error("mark action done", "key", a.Key, "err", err)
			}
		}()
	}
	if strings.HasPrefix(a.Data, clearMemoryData) {
		return r.confirmClearMemory(ctx, a)
	}
	if r.cfg.Actions != nil {
		// The approvals answer every click themselves, refusals included.
		_, err := r.cfg.Actions.HandleAction(ctx, a)
		return err
	}
	const invalid = "This button is no longer valid."
	if a.Respond != nil {
		return a.Respond(ctx, invalid)
	}
	if ad, ok := r.adapters[a.Thread.Platform]; ok {
		return ad.SendPrivate(ctx, a.Thread, a.User, Out{Text: invalid})
	}
	return nil
}
