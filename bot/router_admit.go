package bot

import (
	"context"
	"errors"
	"fmt"
	"github.com/parleybot/parley/chat"
)

// Admission: a recorded message is answered only within its author's
// limits and its conversation's queue (quota.go). What is refused is
// closed in the inbox — it will not be answered later either — and its
// author alone is told why.

// refusedError is a message not taken, with what its author is told.
type refusedError struct{ notice string }

func (e *refusedError) Error() string { return "message not taken: " + e.notice }

// admit queues m, recorded already, or refuses it. was is the length of m
// before it was cut to MessageChars (0: not cut). queued reports whether a
// turn will answer m. The limits are those of the agent that answers
// where m was written.
func (r *Router) admit(ctx context.Context, m chat.Message, was int) (queued bool, err error) {
	ag, _, _ := r.agentAt(ctx, Where{Thread: m.Thread, User: m.User, Direct: m.Direct})
	lim := ag.limits(r.cfg.Limits)
	notice, err := r.quota.admit(ctx, m.User, lim, ag.Name)
	if err == nil && notice == "" {
		notice, err = r.admitSpending(ctx, m, ag.Name, lim)
	}
	if err == nil && notice == "" {
		err = r.enqueue(ctx, m)
		if refused, ok := errors.AsType[*refusedError](err); ok {
			notice, err = refused.notice, nil
		} else if err == nil {
			queued = true
		}
	}
	if err != nil {
		return false, err
	}
	if notice == "" && was > 0 {
		notice = fmt.Sprintf("Your message had %d characters; I read only the first %d.", was, r.cfg.Limits.MessageChars)
	}
	if notice != "" {
		if !queued {
			if err := r.cfg.Inbox.MarkDone(ctx, m.Key); err != nil {
				return false, err
			}
		}
		if err := r.cfg.Outbound.Private(ctx, m.Thread, m.User, chat.Out{Text: notice}); err != nil {
			r.log.Warn("could not tell a person their message was limited", "user", m.User.Key(), "err", err)
		}
	}
	return queued, nil
}

// admitSpending says why m's turn by agent, whose limits are lim, may not
// start for its money limits, "" when it may, and tells the admins when
// they are to hear of it.
func (r *Router) admitSpending(ctx context.Context, m chat.Message, agent string, lim Limits) (string, error) {
	if r.cfg.Costs == nil {
		return "", nil
	}
	notice, admins, err := r.spending.admit(ctx, m.User, agent, Nanos(lim.DailyCost))
	r.tellAdmins(ctx, m.Thread, admins)
	return notice, err
}

// queueFull says why m cannot wait in st's queue, "" when it can. Called
// with r.mu held.
func (r *Router) queueFull(st *sessionState, m chat.Message) string {
	lim := r.cfg.Limits
	if lim.QueueMessages > 0 && len(st.queue) >= lim.QueueMessages {
		return fmt.Sprintf("%d messages are already waiting in this conversation, so I will not take this one; wait for my answer.", len(st.queue))
	}
	if lim.QueueBytes > 0 {
		n := len(m.Text)
		for _, q := range st.queue {
			n += len(q.Text)
		}
		if n > lim.QueueBytes {
			return "The messages waiting in this conversation are already as long as I take at once, so I will not take this one; wait for my answer."
		}
	}
	return ""
}
