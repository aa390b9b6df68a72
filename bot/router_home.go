package bot

import (
	"context"
	"fmt"

	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/chat"
)

// A person's Home page (Slack's App Home tab): a short summary of what
// Parley keeps about them and, with the console on, a button that signs
// them in. It is built from counts the stores give cheaply — no model
// call — and shown through Outbound.Home, paced like a post.

// HandleHome shows h.User their Home page. It returns at once: the
// counts and the page's publishing run beside the handler, so the
// platform's acknowledgement never waits on them, and a page that fails
// is only logged (the person opens it again).
func (r *Router) HandleHome(_ context.Context, h chat.HomeOpened) error {
	if !r.cfg.Access.Allowed(h.User, chat.Thread{Platform: h.User.Platform, Space: h.Space}) {
		// A person who may not use Parley gets no page, and no link.
		r.log.Debug("home page not shown: no access", "user", h.User.Key())
		return nil
	}
	base := r.base
	r.wg.Go(func() {
		if err := r.showHome(base, h); err != nil {
			r.log.Warn("home page not shown", "user", h.User.Key(), "err", err)
		}
	})
	return nil
}

// showHome builds h.User's page and publishes it.
func (r *Router) showHome(ctx context.Context, h chat.HomeOpened) error {
	home, err := r.Home(ctx, h)
	if err != nil {
		return err
	}
	return r.cfg.Outbound.Home(ctx, h.Space, h.User, home)
}

// homeLinkNote is said beside the button: the link is the person's alone.
const homeLinkNote = "The button signs you in once, within 10 minutes of opening this tab, and only you see it here; " +
	"open the tab again for a new one. Do not share it."

// Home is h.User's Home page: how many memory entries Parley keeps for
// them, their active reminders and schedules, their conversations, and
// the console's sign-in button when the console is on.
func (r *Router) Home(ctx context.Context, h chat.HomeOpened) (chat.Home, error) {
	u := h.User
	home := chat.Home{Title: "What Parley keeps about you"}
	if r.cfg.Commands != nil {
		m, err := r.cfg.Commands.memory.Memory(ctx, u.Key())
		if err != nil {
			return chat.Home{}, fmt.Errorf("home: memory: %w", err)
		}
		home.Lines = append(home.Lines, fmt.Sprintf("**Memory:** %s (/memory lists them).", entries(len(m.Profile)+len(m.Facts))))
	}
	if r.due != nil {
		reminders, schedules, err := r.activeItems(ctx, h)
		if err != nil {
			return chat.Home{}, err
		}
		home.Lines = append(home.Lines, fmt.Sprintf("**Reminders:** %d active · **Schedules:** %d active (/remind and /schedules where you set them).", reminders, schedules))
	}
	if r.cfg.Conversations != nil {
		n, err := r.cfg.Conversations(ctx, u.Key())
		if err != nil {
			return chat.Home{}, fmt.Errorf("home: conversations: %w", err)
		}
		home.Lines = append(home.Lines, fmt.Sprintf("**Conversations:** %s.", Thousands(n)))
	}
	if r.cfg.ConsoleLink == nil {
		home.Lines = append(home.Lines, "The web console is off here; when it is on, /console sends you a sign-in link.")
		return home, nil
	}
	link, err := r.cfg.ConsoleLink(ctx, u.Key())
	if err != nil {
		// The summary still shows; the person can ask in chat.
		r.log.Warn("home: no sign-in link", "user", u.Key(), "err", err)
		home.Lines = append(home.Lines, "I could not make your sign-in link just now: send /console for one.")
		return home, nil
	}
	home.Lines = append(home.Lines, "The console shows all of it: edit or forget your memory, see your reminders, export your conversations.", homeLinkNote)
	home.Link = &chat.HomeLink{Label: "Open the console", URL: link}
	return home, nil
}

// activeItems counts h.User's own active reminders and schedules in the
// scopes their page covers: their private chats', the workspace's and
// the operator's (Where of a private chat in h.Space).
func (r *Router) activeItems(ctx context.Context, h chat.HomeOpened) (reminders, schedules int, err error) {
	w := Where{Thread: chat.Thread{Platform: h.User.Platform, Space: h.Space}, User: h.User, Direct: true}
	for _, scope := range w.VisibleKeys() {
		items, err := r.due.items.Items(ctx, scope, h.User.Key())
		if err != nil {
			return 0, 0, fmt.Errorf("home: reminders in %s: %w", scope, err)
		}
		for _, it := range items {
			switch {
			case it.Status != remind.StatusActive:
			case it.Kind == remind.KindSchedule:
				schedules++
			default:
				reminders++
			}
		}
	}
	return reminders, schedules, nil
}

// entries is n memory entries: "1 entry", "12 entries".
func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return Thousands(n) + " entries"
}
