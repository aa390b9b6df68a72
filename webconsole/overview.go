package webconsole

import (
	"context"
	"slices"
	"time"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/internal/percentile"
)

// The overview's answers: today's (UTC) counts by outcome, and answer
// latency per hour over the last 24 hours, from the turns every replica
// keeps (bot.TurnBook).

// latencyRows bounds the turns the overview reads (about 2 a second for a
// whole day): past it the figures are of the first latencyRows, and the
// page says so.
const latencyRows = 200_000

// answerHour is one hour of the latency chart.
type answerHour struct {
	Start    time.Time
	Answered int
	P50, P95 time.Duration
	// X places both bars; Y50/H50 and Y95/H95 are each bar's top and
	// height. The chart's BarWidth is their width.
	X, Y50, H50, Y95, H95 float64
}

// answers is the overview's section on answers.
type answers struct {
	// Today counts today's turns by how they ended; Errors adds up the
	// failed and the never run.
	Answered, Errors, Stopped int
	// The day's p50 and p95 over the answered turns whose latency is
	// known, the last 24 h.
	P50, P95 time.Duration
	Hours    []answerHour
	// Slowest is the tallest bar's p95.
	Slowest time.Duration
	// Cut says more turns ended than latencyRows: the figures are of the
	// first.
	Cut                     bool
	Width, Height, BarWidth float64
	From, Until             time.Time
}

// overviewAnswers reads the turns of the last 24 hours and of today (UTC)
// and lays them out.
func overviewAnswers(ctx context.Context, book bot.TurnBook, now time.Time) (answers, error) {
	now = now.UTC()
	until := now.Truncate(time.Hour).Add(time.Hour)
	from := until.Add(-24 * time.Hour)
	day := now.Truncate(24 * time.Hour)
	// The 24 hours end with the current hour, so they begin at or before
	// today's midnight: one read has both.
	turns, err := book.TurnsBetween(ctx, from, until, latencyRows)
	if err != nil {
		return answers{}, err
	}
	a := answers{Width: chartWidth, Height: chartHeight, BarWidth: chartWidth / 24, From: from, Until: until, Cut: len(turns) == latencyRows}
	perHour := make([][]time.Duration, 24)
	var all []time.Duration
	for _, t := range turns {
		if !t.At.Before(day) {
			switch t.Outcome {
			case bot.TurnAnswered:
				a.Answered++
			case bot.TurnFailed, bot.TurnNotRun:
				a.Errors++
			case bot.TurnStopped:
				a.Stopped++
			}
		}
		if t.At.Before(from) || t.Outcome != bot.TurnAnswered || t.Latency <= 0 {
			continue
		}
		h := int(t.At.Sub(from) / time.Hour)
		perHour[h] = append(perHour[h], t.Latency)
		all = append(all, t.Latency)
	}
	slices.Sort(all)
	a.P50, a.P95 = percentile.Nearest(all, 50), percentile.Nearest(all, 95)
	a.Hours = make([]answerHour, 24)
	for i, l := range perHour {
		slices.Sort(l)
		h := answerHour{Start: from.Add(time.Duration(i) * time.Hour), Answered: len(l), X: float64(i) * a.BarWidth,
			P50: percentile.Nearest(l, 50), P95: percentile.Nearest(l, 95)}
		a.Slowest = max(a.Slowest, h.P95)
		a.Hours[i] = h
	}
	for i := range a.Hours {
		h := &a.Hours[i]
		if a.Slowest > 0 {
			h.H50 = float64(h.P50) / float64(a.Slowest) * chartHeight
			h.H95 = float64(h.P95) / float64(a.Slowest) * chartHeight
		}
		h.Y50, h.Y95 = chartHeight-h.H50, chartHeight-h.H95
	}
	return a, nil
}
