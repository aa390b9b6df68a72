package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/chat"
)

// /tz, /remind and /schedules: a person's time zone, and the reminders and
// schedules of this place (Where.Home: the workspace, server or group; a
// person's own in their private chat). Each person sees and changes their
// own; an admin sees and changes everyone's here. Lists are numbered by
// next due time, and a number refers to the list as it is when the command
// runs.

func (r *Router) cmdTZ(ctx context.Context, c chat.Command) error {
	if r.due == nil {
		return r.answerPrivately(ctx, c, chat.Out{Text: msgRemindersOff})
	}
	z := r.due.zones
	args := c.Args
	if len(args) > 0 && (strings.EqualFold(args[0], "show") || strings.EqualFold(args[0], "set")) {
		args = args[1:] // Discord's subcommands: /tz show, /tz set zone
	}
	if len(args) > 0 {
		loc, err := z.SetZone(ctx, c.User.Key(), args[0])
		if err != nil {
			return r.answerPrivately(ctx, c, chat.Out{Text: err.Error() + "."})
		}
		return r.answerPrivately(ctx, c, chat.Out{Text: fmt.Sprintf("Your time zone is now %s (local time %s). "+
			"Reminders and schedules you set from now on use it; those set before keep theirs.",
			loc, r.cfg.Now().In(loc).Format("Mon 2 Jan 15:04 MST"))})
	}
	loc, source, err := z.zone(ctx, c.User.Key())
	if err != nil {
		return err
	}
	why := map[string]string{"set": "you set it", "profile": "from your profile", "default": "the default here"}[source]
	return r.answerPrivately(ctx, c, chat.Out{Text: fmt.Sprintf("Your time zone: %s (%s); local time %s. /tz Area/City changes it, e.g. /tz Europe/Berlin.",
		loc, why, r.cfg.Now().In(loc).Format("Mon 2 Jan 15:04 MST"))})
}

func (r *Router) cmdRemind(ctx context.Context, c chat.Command) error {
	return r.cmdItems(ctx, c, remind.KindReminder)
}

func (r *Router) cmdSchedules(ctx context.Context, c chat.Command) error {
	return r.cmdItems(ctx, c, remind.KindSchedule)
}

// cmdItems lists this place's items of kind, or cancels, pauses or
// resumes one.
func (r *Router) cmdItems(ctx context.Context, c chat.Command, kind remind.Kind) error {
	if r.due == nil {
		return r.answerPrivately(ctx, c, chat.Out{Text: msgRemindersOff})
	}
	name := "/remind"
	if kind == remind.KindSchedule {
		name = "/schedules"
	}
	admin := r.cfg.Access.IsAdmin(c.User)
	owner := c.User.Key()
	if admin {
		owner = "" // everyone's here
	}
	scope := Where{Thread: c.Thread, User: c.User, Direct: c.Direct}.Home().Key()
	all, err := r.due.items.Items(ctx, scope, owner)
	if err != nil {
		return err
	}
	var items []remind.Item
	for _, it := range all {
		if it.Kind == kind {
			items = append(items, it)
		}
	}
	sub, n := "", 0
	if len(c.Args) > 0 {
		sub = strings.ToLower(c.Args[0])
	}
	if len(c.Args) > 1 {
		n, _ = strconv.Atoi(c.Args[1])
	}
	switch sub {
	case "", "list", "ls":
		return r.answerPrivately(ctx, c, chat.Out{Text: listItems(items, kind, admin, name)})
	case "cancel", "pause", "resume":
		if kind == remind.KindReminder && sub != "cancel" {
			break
		}
		if n < 1 || n > len(items) {
			return r.answerPrivately(ctx, c, chat.Out{Text: fmt.Sprintf("There is no number %d here: %s lists them.", n, name)})
		}
		it := items[n-1]
		if it.Owner != c.User.Key() && !admin {
			return r.answerPrivately(ctx, c, chat.Out{Text: "Only its creator or an admin can change that."})
		}
		text, err := r.due.change(ctx, it, sub)
		if err != nil {
			text = "I could not " + sub + " it: " + err.Error()
		} else {
			r.audit(ctx, AuditEntry{Actor: c.User.Key(), Action: "reminder." + sub, Target: strconv.FormatInt(it.ID, 10), Detail: string(it.Kind), Via: "chat"})
		}
		return r.answerPrivately(ctx, c, chat.Out{Text: text})
	}
	usage := "Usage: /remind, /remind cancel N"
	if kind == remind.KindSchedule {
		usage = "Usage: /schedules, /schedules cancel N, /schedules pause N, /schedules resume N"
	}
	return r.answerPrivately(ctx, c, chat.Out{Text: usage})
}

// change cancels, pauses or resumes it and says what became of it.
func (k *timekeeper) change(ctx context.Context, it remind.Item, how string) (string, error) {
	switch how {
	case "cancel":
		if err := k.items.CancelItem(ctx, it.ID); err != nil {
			return "", err
		}
		return fmt.Sprintf("Cancelled: %q.", it.Text), nil
	case "pause":
		if _, err := k.items.PauseItem(ctx, it.ID, true, k.now()); err != nil {
			return "", err
		}
		return fmt.Sprintf("Paused: %q. /schedules resume to go on.", it.Text), nil
	}
	fresh, err := k.items.PauseItem(ctx, it.ID, false, k.now())
	if err != nil {
		return "", err
	}
	if k.wake != nil {
		k.wake()
	}
	return fmt.Sprintf("Resumed: %q runs next %s.", it.Text, inZone(fresh, fresh.Next)), nil
}

// listItems renders a numbered list of items.
func listItems(items []remind.Item, kind remind.Kind, admin bool, name string) string {
	what := "reminders"
	if kind == remind.KindSchedule {
		what = "schedules"
	}
	whose := "Your " + what
	if admin {
		whose = "The " + what
	}
	if len(items) == 0 {
		return fmt.Sprintf("%s here: none.", whose)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s here (%d):\n", whose, len(items))
	for i, it := range items {
		fmt.Fprintf(&b, "%d. %s — %s", i+1, inZone(it, it.Next), it.Text)
		if it.Recurring() {
			fmt.Fprintf(&b, " (repeats: %s, %s)", it.Spec, it.Zone)
		}
		if it.Status == remind.StatusPaused {
			b.WriteString(" [paused]")
		}
		if kind == remind.KindSchedule && !it.LastRun.IsZero() {
			fmt.Fprintf(&b, " — last run %s: %s", inZone(it, it.LastRun), it.LastResult)
		}
		if admin && it.OwnerName != "" {
			fmt.Fprintf(&b, " — by %s", it.OwnerName)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s cancel N cancels one", name)
	if kind == remind.KindSchedule {
		b.WriteString("; pause N / resume N pause and resume one")
	}
	b.WriteString(".")
	return b.String()
}

const msgRemindersOff = "Reminders and schedules are off here."
