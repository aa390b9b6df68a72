package webconsole

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/webconsole/signin"
)

// The usage page (admins): what turns cost per UTC day, person, agent and
// channel, from the same rows as /usage in chat (docs/costs.md), and how
// close each person is to their daily limit and each agent to its
// monthly budget.

// Limits are the money limits the usage page measures against, in US
// dollars as configured (docs/costs.md); 0 or absent: none.
type Limits struct {
	// DailyCost is what one person's turns may cost per UTC day
	// (limits.daily_cost); admins are exempt.
	DailyCost float64
	// Monthly is each agent's budget per UTC month (budget.monthly,
	// agents.<name>.budget.monthly), by agent name.
	Monthly map[string]float64
}

// usagePeriods are the periods the page offers, in UTC days;
// defaultPeriod is shown when the request names none.
var usagePeriods = []int{7, 30, 90}

const defaultPeriod = 30

// usageRows is how many people, agents and channels each table lists,
// the dearest first.
const usageRows = 50

// The chart's drawing, in SVG user units: the bars share chartWidth, and
// the tallest is chartHeight.
const (
	chartWidth  = 720.0
	chartHeight = 160.0
)

// usagePeriod is the period ?days= asks for: one of usagePeriods, the
// nearest above a number between them, the nearest end past them, and
// defaultPeriod for anything that is no number.
func usagePeriod(q string) int {
	n, err := strconv.Atoi(q)
	if err != nil {
		return defaultPeriod
	}
	for _, p := range usagePeriods {
		if n <= p {
			return p
		}
	}
	return usagePeriods[len(usagePeriods)-1]
}

// usageDay is one UTC day of the chart: its sum and its bar.
type usageDay struct {
	Day time.Time
	Sum bot.CostSum
	// X, Y and Height place the bar; its width is the chart's BarWidth.
	X, Y, Height float64
}

// limitRow is how much of a limit one person or agent has used.
type limitRow struct {
	Key          string
	Nanos, Limit int64
	Percent      int64
	// Exempt is an admin, whom no daily limit holds.
	Exempt bool
}

// usage shows the usage and cost page.
func (s *Server) usage(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	data := map[string]any{"Title": "Usage and cost", "Nav": "usage"}
	if s.cfg.Costs == nil {
		data["Off"] = true
		s.render(w, r, http.StatusOK, "usage", who, data)
		return
	}
	ctx := r.Context()
	days := usagePeriod(r.URL.Query().Get("days"))
	today := s.cfg.Now().UTC().Truncate(24 * time.Hour)
	window := bot.CostFilter{Since: today.AddDate(0, 0, 1-days), Until: today.AddDate(0, 0, 1)}

	perDay, err := s.cfg.Costs.CostsBy(ctx, bot.ByDay, window, 0)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	var tables []sumsTable
	for _, t := range []struct {
		by                bot.CostGroup
		id, title, column string
	}{{bot.ByUser, "people", "By person", "Person"}, {bot.ByAgent, "agents", "By agent", "Agent"}, {bot.ByPlace, "places", "By channel", "Channel"}} {
		rows, err := s.cfg.Costs.CostsBy(ctx, t.by, window, usageRows)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		tables = append(tables, newSumsTable(t.id, t.title, t.column, rows))
	}
	people, agents, err := s.usageLimits(ctx, today)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	data["Days"], data["Periods"], data["From"], data["Today"] = days, usagePeriods, window.Since, today
	data["Chart"], data["Tables"] = usageChart(window.Since, days, perDay), tables
	data["Daily"], data["PeopleToday"], data["Budgets"] = bot.Nanos(s.cfg.Limits.DailyCost), people, agents
	s.render(w, r, http.StatusOK, "usage", who, data)
}

// chart is the per-day bar chart, drawn server-side as SVG.
type chart struct {
	Bars []usageDay
	// Total adds up the days; Dearest is the tallest bar's cost.
	Total   bot.CostSum
	Dearest int64
	// Width and Height are the drawing's, BarWidth each bar's.
	Width, Height, BarWidth float64
}

// usageChart lays out a bar for each of the days from since, the
// tallest the dearest, and adds them up. A day with no calls has a bar of
// no height: the count of bars is the count of days.
func usageChart(since time.Time, days int, sums []bot.CostSum) chart {
	c := chart{Width: chartWidth, Height: chartHeight, BarWidth: chartWidth / float64(days)}
	byKey := map[string]bot.CostSum{}
	for _, s := range sums {
		byKey[s.Key] = s
		c.Total.Calls += s.Calls
		c.Total.Usage = c.Total.Usage.Add(s.Usage)
		c.Total.Nanos += s.Nanos
		c.Total.Unpriced += s.Unpriced
		c.Dearest = max(c.Dearest, s.Nanos)
	}
	c.Bars = make([]usageDay, days)
	for i := range c.Bars {
		d := usageDay{Day: since.AddDate(0, 0, i), X: float64(i) * c.BarWidth}
		d.Sum = byKey[d.Day.Format(time.DateOnly)]
		if c.Dearest > 0 {
			d.Height = float64(d.Sum.Nanos) / float64(c.Dearest) * chartHeight
		}
		d.Y = chartHeight - d.Height
		c.Bars[i] = d
	}
	return c
}

// sumsTable is one of the page's tables of sums: by person, agent or
// channel.
type sumsTable struct {
	ID, Title, Column string
	Rows              []bot.CostSum
	// Unpriced says whether any row had calls without a known price: the
	// column shows only then.
	Unpriced bool
	// Cut says there may be more rows than usageRows.
	Cut bool
}

func newSumsTable(id, title, column string, rows []bot.CostSum) sumsTable {
	return sumsTable{ID: id, Title: title, Column: column, Rows: rows, Cut: len(rows) == usageRows,
		Unpriced: slices.ContainsFunc(rows, func(s bot.CostSum) bool { return s.Unpriced > 0 })}
}

// usageLimits are the people who spent today with their share of the
// daily limit (admins exempt), and the agents with a monthly budget with
// their share of it this UTC month; none when no such limit is set.
func (s *Server) usageLimits(ctx context.Context, today time.Time) ([]limitRow, []limitRow, error) {
	var people, agents []limitRow
	if daily := bot.Nanos(s.cfg.Limits.DailyCost); daily > 0 {
		sums, err := s.cfg.Costs.CostsBy(ctx, bot.ByUser, bot.CostFilter{Since: today, Until: today.AddDate(0, 0, 1)}, usageRows)
		if err != nil {
			return nil, nil, err
		}
		for _, u := range sums {
			if u.Key == "" {
				continue // no person: reflection's calls, which no one's limit counts
			}
			people = append(people, limitRow{Key: u.Key, Nanos: u.Nanos, Limit: daily, Percent: share(u.Nanos, daily), Exempt: s.cfg.IsAdmin(u.Key)})
		}
	}
	month := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
	names := slices.Sorted(maps.Keys(s.cfg.Limits.Monthly))
	names = slices.DeleteFunc(names, func(n string) bool { return s.cfg.Limits.Monthly[n] <= 0 })
	if len(names) == 0 {
		return people, nil, nil
	}
	sums, err := s.cfg.Costs.CostsBy(ctx, bot.ByAgent, bot.CostFilter{Since: month, Until: month.AddDate(0, 1, 0)}, 0)
	if err != nil {
		return nil, nil, err
	}
	spent := map[string]int64{}
	for _, a := range sums {
		spent[a.Key] = a.Nanos
	}
	for _, n := range names {
		budget := bot.Nanos(s.cfg.Limits.Monthly[n])
		agents = append(agents, limitRow{Key: n, Nanos: spent[n], Limit: budget, Percent: share(spent[n], budget)})
	}
	return people, agents, nil
}

// share is n as a whole percentage of limit, rounded down as chat's
// notices round it.
func share(n, limit int64) int64 { return n * 100 / limit }
