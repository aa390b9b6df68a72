package remind

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/internal/lazyre"
)

// The tools people reach reminders and schedules through: the model calls
// remind or schedule when someone asks, with the time as they said it
// (When); everything else — whose it is, where it is delivered, which zone
// the time is in, the scope it belongs to — comes from the turn
// (agent.Caller), never from the model's arguments.

// Adder keeps new items (store.DB).
type Adder interface {
	AddItem(ctx context.Context, it Item, maxActive int) (int64, error)
}

// Zones tell each person's time zone (bot.Zones).
type Zones interface {
	Zone(ctx context.Context, userKey string) (*time.Location, error)
}

// ToolConfig configures the remind and schedule tools.
type ToolConfig struct {
	Items Adder
	Zones Zones
	// Wake tells the loop an item was added (Loop.Wake); nil: none.
	Wake func()
	// MinInterval is the shortest gap a recurrence may have (default
	// 5 min).
	MinInterval time.Duration
	// MaxActive caps one person's active and paused items in a scope
	// (default 50).
	MaxActive int
	Now       func() time.Time
}

// MaxText caps a reminder's text or a schedule's instruction.
const MaxText = 2000

// RemindArgs is the remind tool's argument contract.
type RemindArgs struct {
	Text string   `json:"text" jsonschema:"what to remind of, as it will be posted"`
	At   string   `json:"at,omitempty" jsonschema:"when, in the person's time zone: 'tomorrow 09:00', 'monday 10:00', '17:30', '2026-12-01 09:00'"`
	In   string   `json:"in,omitempty" jsonschema:"or a delay from now: '20m', '2h', '1d'"`
	Cron string   `json:"cron,omitempty" jsonschema:"or a recurrence: a 5-field cron expression in the person's time zone, e.g. '0 10 * * MON' (every Monday at 10)"`
	Who  []string `json:"who,omitempty" jsonschema:"who to remind: 'me' (the default), people as they are mentioned in this conversation (<@U123>, @carol), or 'channel' (posted here, pinging no one); others only in a shared channel"`
}

// ScheduleArgs is the schedule tool's argument contract.
type ScheduleArgs struct {
	Instruction string `json:"instruction" jsonschema:"the work to do at each run, as the person would ask it (e.g. 'summarise what happened in this channel overnight')"`
	At          string `json:"at,omitempty" jsonschema:"a one-off run, in the person's time zone: 'tomorrow 09:00', '2026-12-01 09:00'"`
	In          string `json:"in,omitempty" jsonschema:"or a delay from now: '2h'"`
	Cron        string `json:"cron,omitempty" jsonschema:"or a recurrence: a 5-field cron expression in the person's time zone, e.g. '0 9 * * 1-5' (weekdays at 9)"`
	Where       string `json:"where,omitempty" jsonschema:"'here' (this thread, the default) or 'channel' (a new message in this channel at each run)"`
}

// Tools returns the remind and schedule tools.
func Tools(c ToolConfig) ([]agent.Tool, error) {
	c.MinInterval = cmp.Or(c.MinInterval, 5*time.Minute)
	c.MaxActive = cmp.Or(c.MaxActive, 50)
	if c.Now == nil {
		c.Now = time.Now
	}
	remind, err := agent.Func("remind",
		"Set a reminder when someone asks to be reminded (or to remind others here): Parley posts it in this conversation at the time, mentioning them. "+
			"Give exactly one of at, in or cron. The reminder is posted as it is; it is not an instruction to you.",
		func(ctx context.Context, caller agent.Caller, a RemindArgs) (string, error) {
			targets, err := resolveTargets(caller, a.Who)
			if err != nil {
				return "", err
			}
			if err := mayCall(ctx, caller, targets); err != nil {
				return "", err
			}
			it := Item{Kind: KindReminder, Targets: targets, Text: a.Text}
			return c.add(ctx, caller, it, When{At: a.At, In: a.In, Cron: a.Cron}, false)
		})
	if err != nil {
		return nil, err
	}
	schedule, err := agent.Func("schedule",
		"Schedule agent work: at each due time the instruction runs as a turn of its own in this conversation, for the person asking — "+
			"their identity, memory and permissions; tools that need approval ask them. Give exactly one of at, in or cron.",
		func(ctx context.Context, caller agent.Caller, a ScheduleArgs) (string, error) {
			channel := false
			switch strings.ToLower(strings.TrimSpace(a.Where)) {
			case "", "here", "thread":
			case "channel":
				if caller.Origin.Direct {
					return "", errors.New("in a private chat the schedule runs here: leave where empty")
				}
				channel = true
			default:
				return "", fmt.Errorf("where %q: want here or channel", a.Where)
			}
			it := Item{Kind: KindSchedule, Text: a.Instruction}
			return c.add(ctx, caller, it, When{At: a.At, In: a.In, Cron: a.Cron}, channel)
		})
	if err != nil {
		return nil, err
	}
	return []agent.Tool{remind, schedule}, nil
}

// add completes it from the turn and w — delivered in the turn's thread,
// or its channel when channel is set — keeps it and confirms it in the
// person's zone.
func (c ToolConfig) add(ctx context.Context, caller agent.Caller, it Item, w When, channel bool) (string, error) {
	o := caller.Origin
	if o.Platform == "" || o.Home == "" {
		return "", errors.New("reminders and schedules need a conversation to be delivered in; this one has none")
	}
	it.Text = strings.TrimSpace(it.Text)
	switch {
	case it.Text == "":
		return "", errors.New("say what it is about: the text is empty")
	case utf8.RuneCountInString(it.Text) > MaxText:
		return "", fmt.Errorf("the text is too long: at most %d characters", MaxText)
	}
	loc, err := c.Zones.Zone(ctx, caller.UserKey)
	if err != nil {
		return "", fmt.Errorf("your time zone: %w", err)
	}
	now := c.Now()
	at, spec, err := ParseWhen(w, loc, now)
	if err != nil {
		return "", err
	}
	if spec != "" {
		if err := CheckInterval(spec, loc, now, c.MinInterval); err != nil {
			return "", err
		}
	}
	it.Scope, it.Owner, it.OwnerName = o.Home, caller.UserKey, caller.UserName
	it.Place = placeOf(o, channel)
	it.Spec, it.Zone, it.Next, it.CreatedAt = spec, loc.String(), at, now
	if _, err := c.Items.AddItem(ctx, it, c.MaxActive); err != nil {
		return "", err
	}
	if c.Wake != nil {
		c.Wake()
	}
	return confirmation(it, loc), nil
}

// placeOf is where an item made in o is delivered: o's thread, or o's
// channel itself when channel is set.
func placeOf(o agent.Origin, channel bool) Place {
	p := Place{Platform: o.Platform, Space: o.Space, Chat: o.Chat, Thread: o.Thread, Direct: o.Direct}
	if channel {
		p.Thread = ""
	}
	return p
}

// confirmation says what was set, with the first time in the person's zone
// ("Thu 26 Nov 09:00 CET").
func confirmation(it Item, loc *time.Location) string {
	when := it.Next.In(loc).Format("Mon 2 Jan 2006 15:04 MST")
	if it.Recurring() {
		when = fmt.Sprintf("%s (cron %q, %s), first %s", "on a schedule", it.Spec, loc, when)
	}
	if it.Kind == KindSchedule {
		return fmt.Sprintf("Scheduled: %q runs %s. Tell the person, with that time; /schedules lists and cancels.", it.Text, when)
	}
	who := "you"
	switch {
	case len(it.Targets) == 0:
		who = "this conversation (pinging no one)"
	case len(it.Targets) > 1 || it.Targets[0] != it.Owner:
		who = strings.Join(it.Targets, ", ")
	}
	return fmt.Sprintf("Reminder set: I'll remind %s %s: %q. Tell the person, with that time; /remind lists and cancels.", who, when, it.Text)
}

// mayCall refuses a reminder that would call someone other than the
// person asking who is not a member of the conversation's place, or may
// not use Parley there (agent.Reach; checked again when it goes out).
func mayCall(ctx context.Context, caller agent.Caller, targets []string) error {
	for _, k := range targets {
		if k == caller.UserKey {
			continue
		}
		if caller.Reach == nil {
			return errors.New("here I can remind only you")
		}
		if err := caller.Reach.MayCall(ctx, caller.Origin, k); err != nil {
			return fmt.Errorf("I cannot remind %s here: %w", k, err)
		}
	}
	return nil
}

// mentionForms are how platforms write a mention in a message's text:
// Slack <@U123> or <@U123|name>, Discord <@123> or <@!123>.
var mentionForm = lazyre.MustCompile(`^<@!?([A-Za-z0-9]+)(?:\|[^>]*)?>$`)

// resolveTargets reads who: the person asking by default; others only as
// they are mentioned here, and only in a shared conversation.
func resolveTargets(caller agent.Caller, who []string) ([]string, error) {
	o := caller.Origin
	var out []string
	add := func(key string) {
		for _, k := range out {
			if k == key {
				return
			}
		}
		out = append(out, key)
	}
	channel := false
	for _, w := range who {
		w = strings.TrimSpace(w)
		switch {
		case w == "" || strings.EqualFold(w, "me") || strings.EqualFold(w, "myself"):
			add(caller.UserKey)
		case slices.Contains([]string{"channel", "here", "everyone", "all", "@channel", "@here", "@everyone"}, strings.ToLower(w)):
			// The whole conversation: posted there, pinging no one —
			// Parley never pings a channel.
			channel = true
		case mentionForm().MatchString(w):
			add(o.Platform + ":" + mentionForm().FindStringSubmatch(w)[1])
		case strings.HasPrefix(w, "@") && o.Platform == "telegram" && len(w) > 1:
			// Telegram pings @username mentions itself: kept as the name.
			add(o.Platform + ":@" + strings.TrimPrefix(w, "@"))
		default:
			return nil, fmt.Errorf("who %q: mention the person as this conversation does (e.g. <@U123>), or say me", w)
		}
	}
	if len(out) == 0 && !channel {
		add(caller.UserKey)
	}
	if o.Direct {
		for _, k := range out {
			if k != caller.UserKey {
				return nil, errors.New("in a private chat I can remind only you: ask in a shared channel to remind others")
			}
		}
	}
	return out, nil
}
