package webconsole_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/bot"
)

// TestOverviewAnswers: today's (UTC) answers, errors and stops, and the
// latency of the last 24 hours per hour, from the turns the store keeps;
// the console's clock is 2026-12-06 12:00 UTC, so the chart's hours run
// from 2026-12-05 13:00.
func TestOverviewAnswers(t *testing.T) {
	c := newConsole(t)
	day := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	for i, tr := range []bot.TurnRecord{
		{At: day.Add(-12*time.Hour - 30*time.Minute), Outcome: bot.TurnAnswered, Latency: 10 * time.Second}, // before the 24 h
		{At: day.Add(-4*time.Hour + 10*time.Minute), Outcome: bot.TurnAnswered, Latency: 2 * time.Second},   // yesterday, 20:10
		{At: day.Add(9*time.Hour + 5*time.Minute), Outcome: bot.TurnAnswered, Latency: 400 * time.Millisecond},
		{At: day.Add(9*time.Hour + 6*time.Minute), Outcome: bot.TurnAnswered, Latency: 600 * time.Millisecond},
		{At: day.Add(9*time.Hour + 7*time.Minute), Outcome: bot.TurnAnswered, Latency: time.Second},
		{At: day.Add(11*time.Hour + 59*time.Minute), Outcome: bot.TurnAnswered}, // resumed: no latency
		{At: day.Add(11*time.Hour + 59*time.Minute), Outcome: bot.TurnFailed, Latency: 30 * time.Second},
		{At: day.Add(11*time.Hour + 59*time.Minute), Outcome: bot.TurnNotRun},
		{At: day.Add(11*time.Hour + 59*time.Minute), Outcome: bot.TurnStopped, Latency: time.Minute},
	} {
		if err := c.db.FinishTurn(t.Context(), nil, tr); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	code, body := c.get(t, c.signIn(t, admin), "/")
	if code != http.StatusOK {
		t.Fatalf("GET /: %d\n%s", code, body)
	}
	for _, want := range []string{
		"<dt>Answered today (UTC)</dt><dd>4</dd>",
		`<dt>Errors today</dt><dd class="bad">2</dd>`,
		"<dt>Stopped today</dt><dd>1</dd>",
		// 400 ms, 600 ms, 1 s and 2 s: only answers with a latency count.
		"<dt>Latency p50, 24 h</dt><dd>600 ms</dd>",
		"<dt>Latency p95, 24 h</dt><dd>2.00 s</dd>",
		"<td>2026-12-06 09:00 UTC</td><td>3</td><td>600 ms</td><td>1.00 s</td>",
		"<td>2026-12-05 20:00 UTC</td><td>1</td><td>2.00 s</td><td>2.00 s</td>",
		"<td>2026-12-05 13:00 UTC</td><td>0</td><td>—</td><td>—</td>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the overview lacks %q", want)
		}
	}
	// 24 hours, two bars each; the slowest hour's p95 is the chart's
	// height (160), 09:00's p95 of 1 s half of it.
	bars := regexp.MustCompile(`<rect class="bar p95" x="([0-9.]+)" y="[0-9.]+" width="[0-9.]+" height="([0-9.]+)"><title>([^:]+:[0-9]+ UTC)`).FindAllStringSubmatch(body, -1)
	if len(bars) != 24 {
		t.Fatalf("%d p95 bars, want 24", len(bars))
	}
	heights := map[string]string{}
	for _, b := range bars {
		heights[b[3]] = b[2]
	}
	if heights["2026-12-05 20:00 UTC"] != "160.0" || heights["2026-12-06 09:00 UTC"] != "80.0" || heights["2026-12-05 13:00 UTC"] != "0.0" {
		t.Errorf("p95 bar heights = %v", heights)
	}
	// A person's page has none of it.
	if _, mine := c.get(t, c.signIn(t, "slack:UANA"), "/"); strings.Contains(mine, "Answered today") {
		t.Error("a person's page shows the instance's answers")
	}
}
