package bot

import (
	"context"
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
	return r.cfg.Outbound.Answer(ctx, c, out)
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
	if r.cfg.Approvals != nil {
		// The approvals answer every click themselves, refusals included.
		_, err := r.cfg.Approvals.HandleAction(ctx, a)
		return err
	}
	return r.cfg.Outbound.Tell(ctx, a, "This button is no longer valid.")
}
