package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
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

// resume picks up what a crash interrupted: every accepted, unfinished
// message is answered exactly once, in the reply message the outbox
// already holds.
func (r *Router) resume(ctx context.Context) error {
	items, err := r.cfg.Inbox.Unfinished(ctx)
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	for _, it := range items {
		if age := r.cfg.Now().Sub(it.ReceivedAt); !it.ReceivedAt.IsZero() && age > r.cfg.ResumeWithin {
			// Answering now would post into a conversation that moved on.
			r.log.Warn("not resuming a stale message", "key", it.Key, "age", age.Round(time.Minute))
			if err := r.cfg.Inbox.MarkDone(ctx, it.Key); err != nil {
				return err
			}
			continue
		}
		if len(it.Payload) == 0 {
			// Commands and clicks: their effect happened or did not; a
			// person can repeat a command, so just close the record.
			if err := r.cfg.Inbox.MarkDone(ctx, it.Key); err != nil {
				return err
			}
			continue
		}
		var rp resumePayload
		if json.Unmarshal(it.Payload, &rp) == nil && rp.Approval != "" {
			// A turn an approval resumed, cut short: continue it. The
			// runner runs only calls still without a result, so a tool
			// that already ran is not run again; the model is asked on.
			r.queueResume(rp.Session, rp)
			continue
		}
		var m Message
		if err := json.Unmarshal(it.Payload, &m); err != nil {
			r.log.Error("resume: undecodable inbox item", "key", it.Key, "err", err)
			if err := r.cfg.Inbox.MarkDone(ctx, it.Key); err != nil {
				return err
			}
			continue
		}
		if _, ok := r.adapters[m.Thread.Platform]; !ok {
			continue // its platform is not enabled now; keep it for later
		}
		if err := r.resumeOne(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// resumeOne decides how to continue one interrupted message: not yet in
// the session → answer it normally; in the session but unanswered →
// continue the run; answered → deliver the stored answer.
func (r *Router) resumeOne(ctx context.Context, m Message) error {
	sid, err := r.cfg.Sessions.SessionFor(ctx, m.Thread)
	if err != nil {
		return err
	}
	msgs, err := r.cfg.Runner.Sessions.Messages(ctx, sid)
	if err != nil {
		return err
	}
	at := -1
	for i, msg := range msgs {
		if msg.Role == llm.RoleUser && msg.Key == m.Key {
			at = i
		}
	}
	if at < 0 {
		return r.enqueue(ctx, m)
	}
	if answer, ok := finalAnswer(msgs[at+1:]); ok {
		r.wg.Go(func() { r.redeliver(ctx, sid, m, answer) })
		return nil
	}
	r.mu.Lock()
	st := r.session(sid)
	st.running = true
	r.mu.Unlock()
	r.wg.Go(func() {
		r.withSlot(func(release func()) { r.turn(ctx, sid, []Message{m}, agent.Turn{Resume: true}, release) })
		r.drain(ctx, sid)
	})
	return nil
}

// finalAnswer is the last assistant text after the user's message, when
// the model had finished (no tool calls after it).
func finalAnswer(after []llm.Message) (string, bool) {
	if len(after) == 0 {
		return "", false
	}
	last := after[len(after)-1]
	if last.Role != llm.RoleAssistant || len(last.ToolCalls) > 0 || last.Text == "" ||
		strings.HasSuffix(last.Text, agent.InterruptedMarker) {
		return "", false // cut off: the run must continue
	}
	return last.Text, true
}

// redeliver finishes the reply of an answer the model completed before the
// crash: the outbox continues the same message; nothing is asked again.
func (r *Router) redeliver(ctx context.Context, sid string, m Message, answer string) {
	defer func() {
		if err := r.cfg.Inbox.MarkDone(ctx, m.Key); err != nil {
			r.log.Error("mark inbox done", "key", m.Key, "err", err)
		}
	}()
	reply, err := r.cfg.Reply(ctx, r.adapters[m.Thread.Platform], m.Key, sid, m.Thread, m.User, m.ID)
	if err != nil {
		r.log.Error("resume reply", "key", m.Key, "err", err)
		return
	}
	if err := reply.Finish(ctx, answer); err != nil {
		r.log.Error("resume finish", "key", m.Key, "err", err)
	}
}
