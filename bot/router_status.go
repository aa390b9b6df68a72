package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/chat"
)

// status describes the conversation in c's thread: model, context use,
// session age and size, what is running and what waits for approval; and
// what is left of the caller's own limits.
func (r *Router) status(ctx context.Context, c chat.Command) (string, error) {
	sid, ok, err := r.cfg.Sessions.BoundSession(ctx, c.Thread)
	if err != nil {
		return "", err
	}
	// Who asks, as access lists and access.admins name people: how an
	// operator finds their own id (docs/setup.md).
	you := "You are " + c.User.Key() + " here.\n"
	if !ok {
		sid = ""
	}
	ag := r.agentFor(ctx, Where{Thread: c.Thread, User: c.User, Direct: c.Direct}, sid)
	// The limits that hold here: those of the agent that answers here.
	lim := ag.limits(r.cfg.Limits)
	limits, err := r.quota.status(ctx, c.User, lim, ag.Name)
	if err != nil {
		return "", err
	}
	if ag.Name != DefaultAgent {
		you += "Agent: " + ag.Name + " (/agent says why)\n"
	}
	if !ok {
		return strings.TrimSpace(you + "No conversation here yet.\n" + limits), nil
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
	b.WriteString(you)
	if ag.Model != "" && ag.Switched {
		fmt.Fprintf(&b, "Model: %s (switched with /model)\n", ag.Model)
	} else if ag.Model != "" {
		fmt.Fprintf(&b, "Model: %s\n", ag.Model)
	}
	if size.Model != "" && size.Model != ag.Model {
		// The primary failed and a fallback model answered (llm.fallback);
		// the next turn tries the primary again once it recovers.
		fmt.Fprintf(&b, "Last answer by: %s (fallback)\n", size.Model)
	}
	if window := size.Window; window > 0 {
		fmt.Fprintf(&b, "Context: about %d of %d tokens (%d%%)\n", used, window, used*100/window)
	} else {
		fmt.Fprintf(&b, "Context: about %d tokens\n", used)
	}
	if u := size.Usage; u.InputTokens > 0 {
		fmt.Fprintf(&b, "Cache: %s of %s input tokens cached this session\n", Thousands(u.CachedTokens), Thousands(u.InputTokens))
	}
	if line, err := r.costLine(ctx, sid, c.User, lim); err != nil {
		return "", err
	} else if line != "" {
		b.WriteString(line + "\n")
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
	if r.approvals != nil {
		n, err := r.approvals.Pending(ctx, sid)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "Waiting for approval: %d\n", n)
	}
	if t, err := r.taskStatus(ctx, sid, c.User); err != nil {
		return "", err
	} else if t != "" {
		b.WriteString(t + "\n")
	}
	if next := r.nextReminder(ctx, c); next != "" {
		b.WriteString(next + "\n")
	}
	b.WriteString(limits)
	return strings.TrimRight(b.String(), "\n"), nil
}

// nextReminder is the caller's next reminder or scheduled run here, as a
// /status line; "" when none.
func (r *Router) nextReminder(ctx context.Context, c chat.Command) string {
	if r.due == nil {
		return ""
	}
	scope := Where{Thread: c.Thread, User: c.User, Direct: c.Direct}.Home().Key()
	items, err := r.due.items.Items(ctx, scope, c.User.Key())
	if err != nil {
		r.log.Warn("status: reminders", "err", err)
		return ""
	}
	for _, it := range items { // by next due time
		if it.Status == remind.StatusActive {
			return fmt.Sprintf("Your next %s here: %s — %s", it.Kind, inZone(it, it.Next), it.Text)
		}
	}
	return ""
}

// Thousands writes n with thousands separators: 12,345.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + Thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
