package webconsole

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/internal/percentile"
)

// The overview's answers: today's (UTC) counts by outcome, and answer
// latency per hour over the last 24 hours, from the counts every replica
// keeps (bot.TurnBook): one read of at most a few thousand rows, however
// busy the day.

// latencies are the p50 and p95 of some answered turns' latencies, as
// counted (bot.LatencyBucket: rounded up to two significant digits).
type latencies struct {
	Answered int // those with a known latency
	P50, P95 time.Duration
}

func rank(counts []percentile.Counted) latencies {
	l := latencies{P50: percentile.NearestCounted(counts, 50), P95: percentile.NearestCounted(counts, 95)}
	for _, c := range counts {
		l.Answered += c.N
	}
	return l
}

// answerHour is one hour of the latency chart.
type answerHour struct {
	Start time.Time
	latencies
	// X places both bars; Y50/H50 and Y95/H95 are each bar's top and
	// height. The chart's BarWidth is their width.
	X, Y50, H50, Y95, H95 float64
}

// answers is the overview's section on answers.
type answers struct {
	// Today counts today's turns by how they ended; Errors adds up the
	// failed and the never run.
	Answered, Errors, Stopped int
	// Day is the p50 and p95 of the last 24 hours.
	Day   latencies
	Hours []answerHour
	// Slowest is the tallest bar's p95.
	Slowest                 time.Duration
	Width, Height, BarWidth float64
	From, Until             time.Time
}

// overviewAnswers reads the last 24 hours' counts — they begin at or
// before today's midnight, as the hours end with the current one — and
// lays them out.
func overviewAnswers(ctx context.Context, book bot.TurnBook, now time.Time) (answers, error) {
	now = now.UTC()
	until := now.Truncate(time.Hour).Add(time.Hour)
	from := until.Add(-24 * time.Hour)
	day := now.Truncate(24 * time.Hour)
	rows, err := book.TurnHours(ctx, from, until)
	if err != nil {
		return answers{}, err
	}
	a := answers{Width: chartWidth, Height: chartHeight, BarWidth: chartWidth / 24, From: from, Until: until}
	var all []percentile.Counted
	perHour := make([][]percentile.Counted, 24)
	for _, r := range rows { // by hour, outcome and latency: each hour's latencies ascend
		if !r.Hour.Before(day) {
			switch r.Outcome {
			case bot.TurnAnswered:
				a.Answered += r.N
			case bot.TurnFailed, bot.TurnNotRun:
				a.Errors += r.N
			case bot.TurnStopped:
				a.Stopped += r.N
			}
		}
		h := int(r.Hour.Sub(from) / time.Hour)
		if r.Outcome != bot.TurnAnswered || r.Latency <= 0 || h < 0 || h >= 24 {
			continue
		}
		c := percentile.Counted{Value: r.Latency, N: r.N}
		perHour[h] = append(perHour[h], c)
		all = append(all, c)
	}
	sortCounted(all)
	a.Day = rank(all)
	a.Hours = make([]answerHour, 24)
	for i, counts := range perHour {
		a.Hours[i] = answerHour{Start: from.Add(time.Duration(i) * time.Hour), latencies: rank(counts), X: float64(i) * a.BarWidth}
		a.Slowest = max(a.Slowest, a.Hours[i].P95)
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

// sortCounted sorts counts by value (the day's, gathered hour by hour).
func sortCounted(counts []percentile.Counted) {
	slices.SortFunc(counts, func(a, b percentile.Counted) int { return cmp.Compare(a.Value, b.Value) })
}
