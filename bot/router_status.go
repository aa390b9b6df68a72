package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// status describes the conversation in t: model, context use, session age
// and size, what is running and what waits for approval.
func (r *Router) status(ctx context.Context, t Thread) (string, error) {
	sid, ok, err := r.cfg.Sessions.BoundSession(ctx, t)
	if err != nil {
		return "", err
	}
	if !ok {
		return "No conversation here yet.", nil
	}
	size, err := r.cfg.Runner.Measure(ctx, sid)
	if err != nil {
		return "", err
	}
	used := size.Tokens
	r.mu.Lock()
	running := r.sessions[sid] != nil && r.sessions[sid].running
	r.mu.Unlock()
	var b strings.Builder
	if r.cfg.Model != "" {
		fmt.Fprintf(&b, "Model: %s\n", r.cfg.Model)
	}
	if window := size.Window; window > 0 {
		fmt.Fprintf(&b, "Context: about %d of %d tokens (%d%%)\n", used, window, used*100/window)
	} else {
		fmt.Fprintf(&b, "Context: about %d tokens\n", used)
	}
	fmt.Fprintf(&b, "Session %s: %d messages", shortID(sid), size.Messages)
	if info, err := r.cfg.Sessions.Session(ctx, sid); err == nil && !info.CreatedAt.IsZero() {
		fmt.Fprintf(&b, ", started %s ago", r.cfg.Now().Sub(info.CreatedAt).Round(time.Minute))
	}
	b.WriteString("\n")
	if running {
		b.WriteString("Now: writing an answer (/stop to stop it)\n")
	} else {
		b.WriteString("Now: idle\n")
	}
	if r.cfg.Approvals != nil {
		n, err := r.cfg.Approvals.Pending(ctx, sid)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "Waiting for approval: %d", n)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// clearMemoryData prefixes the payload of the "forget everything" button;
// the rest is a one-time token held in the KV store, never the user.
const clearMemoryData = "mc:"

// clearMemoryTTL bounds how long a confirmation button stays valid.
const clearMemoryTTL = 10 * time.Minute

// askClearMemory asks the caller, privately, to confirm with a button.
// Where the platform has no buttons, the text form confirms instead.
func (r *Router) askClearMemory(ctx context.Context, c Command) error {
	a, ok := r.adapters[c.Thread.Platform]
	if !ok || !a.Capabilities().Buttons {
		out, err := r.cfg.Commands.Command(ctx, c) // asks for "/memory clear yes"
		if err != nil {
			return err
		}
		return r.answerPrivately(ctx, c, Out{Text: out})
	}
	token := randomToken()
	expires := r.cfg.Now().Add(clearMemoryTTL).Unix()
	if err := r.cfg.KV.Set(ctx, "memclear:"+token, c.User.Key()+"|"+strconv.FormatInt(expires, 10)); err != nil {
		return err
	}
	return r.answerPrivately(ctx, c, Out{
		Text:    "This forgets everything I remember about you. Are you sure?",
		Buttons: []Button{{Label: "Forget everything", Style: ButtonDanger, Data: clearMemoryData + token}},
	})
}

// confirmClearMemory acts on the button: only the person who asked, only
// once, only before it expires.
func (r *Router) confirmClearMemory(ctx context.Context, a Action) error {
	tell := func(text string) error { return r.cfg.Outbound.Tell(ctx, a, text) }
	key := "memclear:" + strings.TrimPrefix(a.Data, clearMemoryData)
	v, ok, err := r.cfg.KV.Get(ctx, key)
	if err != nil {
		return err
	}
	owner, exp, _ := strings.Cut(v, "|")
	expires, perr := strconv.ParseInt(exp, 10, 64)
	if !ok || perr != nil || r.cfg.Now().Unix() > expires {
		return tell("This button is no longer valid.")
	}
	if owner != a.User.Key() {
		return tell("Only the person who asked can confirm this.")
	}
	if err := r.cfg.KV.Set(ctx, key, "used"); err != nil {
		return err
	}
	out, err := r.cfg.Commands.Command(ctx, Command{Thread: a.Thread, User: a.User, Name: "memory", Args: []string{"clear", "yes"}})
	if err != nil {
		return err
	}
	return tell(out)
}
