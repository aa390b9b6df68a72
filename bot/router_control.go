package bot

import (
	"context"
	"fmt"
	"github.com/parleybot/parley/chat"
)

// Who may control a conversation: stop the answer being written, or start
// it afresh. In a shared thread that is the person whose answer is being
// written, the person who started the conversation, or an admin; anyone
// else is told so privately and nothing changes. A direct chat belongs to
// its one person.

// StarterKey is the KV key where the router keeps who started a session
// (the stores read it: the console lists a person's conversations by it,
// and a pruned session takes it along).
func StarterKey(sid string) string { return "starter:" + sid }

// noteStarter records u as the starter of session sid, unless someone is
// already recorded.
func (r *Router) noteStarter(ctx context.Context, sid string, u chat.User) error {
	if _, ok, err := r.cfg.KV.Get(ctx, StarterKey(sid)); err != nil || ok {
		return err
	}
	if err := r.cfg.KV.Set(ctx, StarterKey(sid), u.Key()); err != nil {
		return fmt.Errorf("record who started session %s: %w", sid, err)
	}
	return nil
}

// mayControl reports whether c's caller may stop or renew the conversation
// in c.Thread.
func (r *Router) mayControl(ctx context.Context, c chat.Command) (bool, error) {
	if c.Direct || r.cfg.Access.IsAdmin(c.User) {
		return true, nil
	}
	sid, ok, err := r.cfg.Sessions.BoundSession(ctx, c.Thread)
	if err != nil || !ok {
		return true, err // nothing here yet: nothing to take from anyone
	}
	me := c.User.Key()
	r.mu.Lock()
	st := r.sessions[sid]
	author := st != nil && st.running && st.author == me
	r.mu.Unlock()
	if author {
		return true, nil
	}
	starter, ok, err := r.cfg.KV.Get(ctx, StarterKey(sid))
	if err != nil {
		return false, err
	}
	return !ok || starter == me, nil
}

// msgNotYours is what someone who may not control a conversation is told.
const msgNotYours = "Only the person who started this conversation, the person whose answer is being written, or an admin can do that here."

// controlled lets only those who may control the conversation run a
// command (/stop, /new); anyone else is told so privately.
func controlled(run func(*Router, context.Context, chat.Command) error) func(*Router, context.Context, chat.Command) error {
	return func(r *Router, ctx context.Context, c chat.Command) error {
		ok, err := r.mayControl(ctx, c)
		if err != nil {
			return err
		}
		if !ok {
			return r.answerPrivately(ctx, c, chat.Out{Text: msgNotYours})
		}
		return run(r, ctx, c)
	}
}
