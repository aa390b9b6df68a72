package bot

import (
	"context"
	"encoding/json"

	"github.com/parleybot/parley/chat"
)

// A task turn may wait for a reminder (the wait tool, {"for":"reminder"}):
// when one of its author's reminders is shown in its conversation while
// it runs, the wait returns with the reminder's text. The reminder is
// shown by whichever replica's timekeeper claimed it; the turn may run on
// another, which learns of it as of /stop (router_remote.go): a signal of
// kind signalReminder kept for the session, with the reminder's owner and
// text, that the running replica looks for at each look.

// signalReminder is the turn signal of a reminder shown.
const signalReminder = "reminder"

// reminderSignal is a reminder shown, as kept for another replica.
type reminderSignal struct {
	turnSignal
	Owner string `json:"owner"`
	Text  string `json:"text"`
}

// reminderShown tells the turn running in t, if its author is owner, that
// owner's reminder text was just shown there: here, or through the store
// when another replica runs it. A failure is logged: the wait then ends
// at its timeout.
func (r *Router) reminderShown(ctx context.Context, t chat.Thread, owner, text string) {
	sid, ok, err := r.cfg.Sessions.BoundSession(ctx, t)
	if err != nil || !ok {
		if err != nil {
			r.log.Warn("find the session a reminder was shown in", "err", err)
		}
		return
	}
	r.mu.Lock()
	st, here := r.sessions[sid]
	if here && st.running {
		if st.author == owner && st.reminded != nil {
			select {
			case st.reminded <- text:
			default: // one already waits to be read
			}
		}
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	if r.cfg.Sharing == nil {
		return // alone: no other replica runs it
	}
	v, err := json.Marshal(reminderSignal{turnSignal: turnSignal{At: r.cfg.Now().UnixMilli()}, Owner: owner, Text: text})
	if err != nil {
		return
	}
	if err := r.cfg.KV.Set(context.WithoutCancel(ctx), signalKey(signalReminder, sid), string(v)); err != nil {
		r.log.Warn("tell another replica a reminder was shown", "session", sid, "err", err)
	}
}

// remindedElsewhere passes on to session sid's running turn, whose author
// is author, a reminder another replica showed at or after since, and
// returns the time of the one it passed on (since when none).
func (r *Router) remindedElsewhere(ctx context.Context, sid, author string, since int64) int64 {
	v, ok, err := r.cfg.KV.Get(ctx, signalKey(signalReminder, sid))
	if err != nil || !ok {
		return since
	}
	var sig reminderSignal
	if json.Unmarshal([]byte(v), &sig) != nil || sig.At < since || sig.Owner != author {
		return since
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if st, ok := r.sessions[sid]; ok && ctx.Err() == nil && st.running && st.reminded != nil {
		select {
		case st.reminded <- sig.Text:
		default:
		}
	}
	return sig.At + 1
}
