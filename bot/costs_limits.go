package bot

import (
	"context"
	"fmt"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/chat"
)

// Money limits (docs/costs.md): limits.daily_cost bounds what one person's
// turns may cost in a UTC day, an agent's budget.monthly what its turns
// may cost in a UTC month. At 80 % the person (their day) or the admins
// (an agent's month) are told once; at 100 % new turns are refused, the
// person is told why, and the admins get a private note, once a period.

// warnAt is the share of a limit at which its first notice goes out, in
// percent.
const warnAt = 80

// spending decides on and notices money limits. The zero value has none.
// A person's daily limit is the one that holds where the agent answers
// (Agent.Limits), which its callers pass in nanodollars (0: no limit).
type spending struct {
	book   CostBook
	budget map[string]int64 // nanodollars an agent's month, by agent
	access Access
	kv     chat.KV
	now    func() time.Time
}

// today and month are the periods the limits count, in UTC.
func (s *spending) today() (time.Time, time.Time) {
	d := s.now().UTC().Truncate(24 * time.Hour)
	return d, d.AddDate(0, 0, 1)
}

func (s *spending) month() (time.Time, time.Time) {
	n := s.now().UTC()
	m := time.Date(n.Year(), n.Month(), 1, 0, 0, 0, 0, time.UTC)
	return m, m.AddDate(0, 1, 0)
}

// limited reports whether any money limit is set for agent, whose daily
// limit is daily.
func (s *spending) limited(agent string, daily int64) bool {
	return s.book != nil && (daily > 0 || s.budget[agent] > 0)
}

// admit says why a turn of agent for u must not start, "" when it may;
// admins says so too, when the admins are to hear of the refusal. An
// agent's budget holds for everyone; a person's day (daily) for all but
// admins.
func (s *spending) admit(ctx context.Context, u chat.User, agent string, daily int64) (notice, admins string, err error) {
	if !s.limited(agent, daily) {
		return "", "", nil
	}
	if b := s.budget[agent]; b > 0 {
		from, to := s.month()
		sum, err := s.book.SumCosts(ctx, CostFilter{Since: from, Until: to, Agent: agent})
		if err != nil {
			return "", "", err
		}
		if sum.Nanos >= b {
			renews := to.Format("2 January")
			notice = fmt.Sprintf("This assistant has spent its budget for the month (%s), so I will not answer until it renews on %s (UTC). An admin can raise it.", Dollars(b), renews)
			return notice, s.once(ctx, "budget:"+agent+":"+from.Format("2006-01"), fmt.Sprintf(
				"Agent %s has spent its monthly budget of %s (budget.monthly): it refuses new turns until %s (UTC).", agent, Dollars(b), renews)), nil
		}
	}
	if daily > 0 && !s.access.IsAdmin(u) {
		from, to := s.today()
		sum, err := s.book.SumCosts(ctx, CostFilter{Since: from, Until: to, User: u.Key()})
		if err != nil {
			return "", "", err
		}
		if sum.Nanos >= daily {
			notice = fmt.Sprintf("You have used today's budget of %s, so I will not answer this. It renews at 00:00 UTC.", Dollars(daily))
			return notice, s.once(ctx, "daily:"+u.Key()+":"+from.Format(time.DateOnly), fmt.Sprintf(
				"%s has used their daily budget of %s (limits.daily_cost) and is refused until 00:00 UTC.", u.Key(), Dollars(daily))), nil
		}
	}
	return "", "", nil
}

// crossed looks, after c was kept, whether it took its person's day
// (daily, its agent's) or its agent's month past warnAt: mine is then the
// person's notice, admins the admins', each once a period.
func (s *spending) crossed(ctx context.Context, c Cost, u chat.User, daily int64) (mine, admins string, err error) {
	if !s.limited(c.Agent, daily) || c.Nanos == 0 {
		return "", "", nil
	}
	if b := s.budget[c.Agent]; b > 0 {
		from, to := s.month()
		sum, err := s.book.SumCosts(ctx, CostFilter{Since: from, Until: to, Agent: c.Agent})
		if err != nil {
			return "", "", err
		}
		if over(sum.Nanos, c.Nanos, b) {
			admins = s.once(ctx, "budget-warn:"+c.Agent+":"+from.Format("2006-01"), fmt.Sprintf(
				"Agent %s has spent %s of its monthly budget of %s (%d%%); at 100%% it refuses new turns until %s (UTC).",
				c.Agent, Dollars(sum.Nanos), Dollars(b), percent(sum.Nanos, b), to.Format("2 January")))
		}
	}
	if daily > 0 && !s.access.IsAdmin(u) {
		from, _ := s.today()
		sum, err := s.book.SumCosts(ctx, CostFilter{Since: from, Until: from.AddDate(0, 0, 1), User: c.User})
		if err != nil {
			return "", admins, err
		}
		if over(sum.Nanos, c.Nanos, daily) {
			mine = s.once(ctx, "daily-warn:"+c.User+":"+from.Format(time.DateOnly), fmt.Sprintf(
				"You have used %s of today's budget of %s (%d%%). At 100%% I stop answering you until 00:00 UTC.",
				Dollars(sum.Nanos), Dollars(daily), percent(sum.Nanos, daily)))
		}
	}
	return mine, admins, nil
}

// over reports whether the call that cost last took sum across warnAt of
// limit.
func over(sum, last, limit int64) bool {
	return sum*100 >= limit*warnAt && (sum-last)*100 < limit*warnAt
}

func percent(n, of int64) int64 { return n * 100 / of }

// once is text the first time key is asked for, "" after: a notice goes
// out once a period whatever the replicas and restarts (the mark is in
// the store; two replicas crossing at the same moment may both send).
func (s *spending) once(ctx context.Context, key, text string) string {
	key = "costnote:" + key
	if _, seen, err := s.kv.Get(ctx, key); err != nil || seen {
		return ""
	}
	if err := s.kv.Set(ctx, key, s.now().UTC().Format(time.RFC3339)); err != nil {
		return ""
	}
	return text
}

// limitsOf are the limits that hold where agent name answers: its own, or
// the router's.
func (r *Router) limitsOf(name string) Limits { return r.cfg.Agents.Named(name).limits(r.cfg.Limits) }

// placeOf is where a cost is counted, as bindings name places: a channel
// or group (slack:channel:C0123), a platform's direct messages together
// (telegram:dm).
func placeOf(w Where) string {
	if w.Direct {
		return chat.PlaceSet{Kind: chat.PlaceDirect, Platform: w.Thread.Platform}.String()
	}
	return chat.ChannelOf(w.Thread).String()
}

// costTrace is ctx carrying the usage trace that keeps the costs of the
// model calls made for tr: the turn's steps, compaction, the memory
// judge its tools ask, its task's helpers.
func (r *Router) costTrace(ctx context.Context, tr *turnRun) context.Context {
	if r.cfg.Costs == nil && r.cfg.Metrics == nil {
		return ctx
	}
	m := tr.m
	base := Cost{User: m.User.Key(), Agent: tr.agent.Name, Place: placeOf(Where{Thread: m.Thread, User: m.User, Direct: m.Direct}), Session: tr.sid}
	return llm.WithUsageTrace(ctx, func(ctx context.Context, call llm.CallCost) {
		c := base
		c.At, c.Model, c.Usage, c.Nanos, c.Priced = r.cfg.Now(), call.Model, call.Usage, call.Nanos, call.Priced
		r.spent(context.WithoutCancel(ctx), c, m.Thread, m.User)
	})
}

// spent keeps c, counts it, and sends the notices it calls for.
func (r *Router) spent(ctx context.Context, c Cost, t chat.Thread, u chat.User) {
	if r.cfg.Metrics != nil && c.Priced {
		r.cfg.Metrics.Spent(c.Agent, c.Model, c.Nanos)
	}
	if r.cfg.Costs == nil {
		return
	}
	if err := r.cfg.Costs.RecordCost(ctx, c); err != nil {
		r.log.Error("keep a model call's cost", "user", c.User, "model", c.Model, "err", err)
		return
	}
	mine, admins, err := r.spending.crossed(ctx, c, u, Nanos(r.limitsOf(c.Agent).DailyCost))
	if err != nil {
		r.log.Warn("check the money limits", "user", c.User, "err", err)
	}
	if mine != "" {
		if err := r.cfg.Outbound.Private(ctx, t, u, chat.Out{Text: mine}); err != nil {
			r.log.Warn("tell a person of their daily budget", "user", c.User, "err", err)
		}
	}
	r.tellAdmins(ctx, t, admins)
}

// tellAdmins sends text privately to every admin: where t is, on t's
// platform (Slack: visible to an admin in t's channel), by direct message
// on another. "" sends nothing.
func (r *Router) tellAdmins(ctx context.Context, t chat.Thread, text string) {
	if text == "" {
		return
	}
	r.log.Warn("money limit", "note", text)
	for _, key := range r.cfg.Access.Admins {
		u := userOf(key)
		if u.ID == "" || r.adapters[u.Platform] == nil {
			continue
		}
		where := t
		if u.Platform != t.Platform {
			where = chat.Thread{Platform: u.Platform}
		}
		if err := r.cfg.Outbound.Private(ctx, where, u, chat.Out{Text: text}); err != nil {
			r.log.Warn("send an admin a note", "admin", key, "err", err)
		}
	}
}
