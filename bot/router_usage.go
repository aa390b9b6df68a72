package bot

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/parleybot/parley/chat"
)

// /status's cost line and /usage (admins): what turns cost, from the
// costs every model call leaves (costs.go).

// usagePeriods are /usage's columns: today, and the UTC days before it.
var usagePeriods = [...]struct {
	name string
	days int
}{{"today", 1}, {"7 days", 7}, {"30 days", 30}}

// usageRows is how many people, agents and places /usage lists each.
const usageRows = 10

// costLine is /status's line on money: this conversation's cost and the
// caller's today, against the daily limit of lim (where it is asked); ""
// without costs kept.
func (r *Router) costLine(ctx context.Context, sid string, u chat.User, lim Limits) (string, error) {
	if r.cfg.Costs == nil {
		return "", nil
	}
	conv, err := r.cfg.Costs.SumCosts(ctx, CostFilter{Session: sid})
	if err != nil {
		return "", err
	}
	from, to := r.spending.today()
	today, err := r.cfg.Costs.SumCosts(ctx, CostFilter{User: u.Key(), Since: from, Until: to})
	if err != nil {
		return "", err
	}
	line := fmt.Sprintf("Cost: %s this conversation, %s yours today", Dollars(conv.Nanos), Dollars(today.Nanos))
	if d := Nanos(lim.DailyCost); d > 0 && !r.cfg.Access.IsAdmin(u) {
		line += " of " + Dollars(d)
	}
	if n := conv.Unpriced; n > 0 {
		line += fmt.Sprintf(" (%s without a known price)", plural(n, "model call"))
	}
	return line, nil
}

func (r *Router) cmdUsage(ctx context.Context, c chat.Command) error {
	if !r.cfg.Access.IsAdmin(c.User) {
		return r.answerPrivately(ctx, c, chat.Out{Text: "Only an admin can see what everyone's turns cost."})
	}
	if r.cfg.Costs == nil {
		return r.answerPrivately(ctx, c, chat.Out{Text: "Costs are not kept here."})
	}
	text, err := r.usage(ctx)
	if err != nil {
		return err
	}
	return r.answerPrivately(ctx, c, chat.Out{Text: text})
}

// usage is /usage's answer: the total and the dearest people, agents and
// places, each for today, 7 and 30 days.
func (r *Router) usage(ctx context.Context) (string, error) {
	day, _ := r.spending.today()
	var since [len(usagePeriods)]time.Time
	for i, p := range usagePeriods {
		since[i] = day.AddDate(0, 0, 1-p.days)
	}
	var b strings.Builder
	names := make([]string, len(usagePeriods))
	for i, p := range usagePeriods {
		names[i] = p.name
	}
	fmt.Fprintf(&b, "Cost %s (UTC days; tokens in brackets)\n", strings.Join(names, " / "))
	var totals []string
	unpriced := 0
	for i := range usagePeriods {
		s, err := r.cfg.Costs.SumCosts(ctx, CostFilter{Since: since[i]})
		if err != nil {
			return "", err
		}
		totals = append(totals, fmt.Sprintf("%s (%s)", Dollars(s.Nanos), Thousands(s.Usage.InputTokens+s.Usage.OutputTokens)))
		unpriced = s.Unpriced
	}
	b.WriteString("All: " + strings.Join(totals, " / ") + "\n")
	for _, g := range []struct {
		by    CostGroup
		title string
	}{{ByUser, "By person"}, {ByAgent, "By agent"}, {ByPlace, "By channel"}} {
		// The rows are the dearest of the longest period; each shows its
		// cost in every period.
		var cols [len(usagePeriods)]map[string]CostSum
		var rows []CostSum
		for i := range usagePeriods {
			limit := 0
			if i == len(usagePeriods)-1 {
				limit = usageRows
			}
			sums, err := r.cfg.Costs.CostsBy(ctx, g.by, CostFilter{Since: since[i]}, limit)
			if err != nil {
				return "", err
			}
			cols[i] = map[string]CostSum{}
			for _, s := range sums {
				cols[i][s.Key] = s
			}
			rows = sums
		}
		if len(rows) == 0 {
			continue
		}
		// Blank lines around a list keep the next title out of it.
		b.WriteString("\n" + g.title + ":\n\n")
		for _, row := range rows {
			var cells []string
			for i := range usagePeriods {
				cells = append(cells, Dollars(cols[i][row.Key].Nanos))
			}
			fmt.Fprintf(&b, "- %s: %s\n", CostKey(row.Key), strings.Join(cells, " / "))
		}
	}
	if unpriced > 0 {
		fmt.Fprintf(&b, "\n%s in 30 days had no known price (providers.<name>.prices sets one).\n", plural(unpriced, "model call"))
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// plural is n things: "1 model call", "3 model calls".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return Thousands(n) + " " + thing + "s"
}
