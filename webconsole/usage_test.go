package webconsole_test

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
)

// spend records model calls' costs, in the days before the console's
// clock (2026-12-06 12:00 UTC), the dearest day today:
//
//	today    slack:UANA $0.0040, slack:UADM (an admin) $0.0080
//	-1 day   slack:UBO  $0.0020 (agent ops)
//	-2 days  slack:UANA $0.0010
//	-5 days  slack:UBO  an unpriced call
//	-35 days slack:UANA $1.00: only in 90 days
func (c *console) spend(t *testing.T) {
	t.Helper()
	now := c.clock.now()
	for i, row := range []struct {
		daysAgo  int
		user, ag string
		nanos    int64
		in, out  int
		unpriced bool
		place    string
	}{
		{0, "slack:UANA", "main", 4_000_000, 1000, 200, false, "slack:channel:C1"},
		{0, admin, "main", 8_000_000, 3000, 500, false, "slack:channel:C1"},
		{1, "slack:UBO", "ops", 2_000_000, 400, 100, false, "telegram:dm"},
		{2, "slack:UANA", "main", 1_000_000, 100, 50, false, "slack:dm"},
		{5, "slack:UBO", "ops", 0, 700, 70, true, "telegram:dm"},
		{35, "slack:UANA", "main", 1_000_000_000, 9, 9, false, "slack:dm"},
	} {
		err := c.db.RecordCost(t.Context(), bot.Cost{At: now.AddDate(0, 0, -row.daysAgo), User: row.user, Agent: row.ag,
			Place: row.place, Session: "s", Model: "m", Usage: llm.Usage{InputTokens: row.in, OutputTokens: row.out},
			Nanos: row.nanos, Priced: !row.unpriced})
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
}

var bar = regexp.MustCompile(`<rect class="bar" x="[0-9.]+" y="([0-9.]+)" width="[0-9.]+" height="([0-9.]+)"><title>([0-9-]+): ([^,]+),`)

func TestUsage(t *testing.T) {
	c := newConsole(t)
	c.spend(t)
	root := c.signIn(t, admin)
	code, body := c.get(t, root, "/usage?days=7")
	if code != http.StatusOK {
		t.Fatalf("GET /usage: %d\n%s", code, body)
	}
	// One bar a day, as tall as the day is dear: today's $0.0120 is the
	// chart's height, 160.
	bars := bar.FindAllStringSubmatch(body, -1)
	if len(bars) != 7 {
		t.Fatalf("%d bars, want 7:\n%s", len(bars), body)
	}
	want := map[string]float64{"2026-12-06": 12, "2026-12-05": 2, "2026-12-04": 1} // thousandths of a dollar
	for _, b := range bars {
		y, _ := strconv.ParseFloat(b[1], 64)
		h, _ := strconv.ParseFloat(b[2], 64)
		if got, want := h, want[b[3]]/12*160; got < want-0.1 || got > want+0.1 {
			t.Errorf("the bar of %s is %.1f high, want %.1f", b[3], got, want)
		}
		if y+h < 159.9 || y+h > 160.1 {
			t.Errorf("the bar of %s does not stand on the axis: y %.1f, height %.1f", b[3], y, h)
		}
	}
	if bars[0][3] != "2026-11-30" || bars[6][3] != "2026-12-06" || bars[6][4] != "$0.0120" {
		t.Errorf("the bars run %s (%s) to %s (%s)", bars[0][3], bars[0][4], bars[6][3], bars[6][4])
	}
	for _, want := range []string{
		`<desc id="chart-desc">`, `<td>2026-12-05</td><td>$0.0020</td>`, // the table beside the chart
		`$0.0150</strong>`, `5 model calls`, `1 of them had no known price`,
		`<td>slack:UANA</td><td>$0.0050</td><td>1,100</td><td>250</td><td>2</td><td>0</td>`,
		`<td>slack:UBO</td><td>$0.0020</td><td>1,100</td><td>170</td><td>2</td><td>1</td>`,
		`<th scope="col">Unpriced calls</th>`,
		`<td>ops</td><td>$0.0020</td>`, `<td>telegram:dm</td><td>$0.0020</td>`,
		// Today against the daily limit of $0.0100; the admin is exempt.
		`<td>slack:UANA</td><td>$0.0040</td><td><meter min="0" max="100" low="80" high="100" optimum="0" value="40">40%</meter> 40%</td>`,
		`<td>slack:UADM</td><td>$0.0080</td><td>exempt (admin)</td>`,
		// main this month: $0.0130 of $0.0500.
		`<td>main</td><td>$0.0130</td><td>$0.0500</td><td><meter min="0" max="100" low="80" high="100" optimum="0" value="26">26%</meter>`,
		`<a href="/usage?days=7" aria-current="page">7 days</a>`, `<a href="/usage" aria-current="page">Usage</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(body, "style=") || strings.Contains(body, "<script>") {
		t.Error("inline style or script, which the CSP refuses")
	}
	// 90 days reach the dollar of 35 days ago.
	if _, body := c.get(t, root, "/usage?days=90"); !strings.Contains(body, "$1.02</strong>") {
		t.Error("90 days lack the dollar spent 35 days ago")
	}
}

func TestUsagePeriods(t *testing.T) {
	c := newConsole(t)
	root := c.signIn(t, admin)
	for q, days := range map[string]int{
		"": 30, "days=abc": 30, "days=7": 7, "days=30": 30, "days=90": 90,
		"days=0": 7, "days=-5": 7, "days=8": 30, "days=31": 90, "days=100000": 90, "days=99999999999999999999": 30,
	} {
		code, body := c.get(t, root, "/usage?"+q)
		if n := len(bar.FindAllString(body, -1)); code != http.StatusOK || n != days {
			t.Errorf("?%s: %d, %d bars, want %d", q, code, n, days)
		}
		if !strings.Contains(body, "No model calls in this period.") {
			t.Errorf("?%s: no costs, yet no word of it", q)
		}
	}
}

func TestUsageIsForAdmins(t *testing.T) {
	c := newConsole(t)
	c.spend(t)
	ana := c.signIn(t, "slack:UANA")
	code, body := c.get(t, ana, "/usage")
	if code != http.StatusForbidden || !strings.Contains(body, "for admins") || strings.Contains(body, "slack:UBO") {
		t.Errorf("ana GET /usage: %d\n%s", code, body)
	}
	if _, home := c.get(t, ana, "/"); strings.Contains(home, `href="/usage"`) {
		t.Error("a person's menu links to the usage page")
	}
}

// Reflection's calls are counted by agent and by place, for no person,
// and no person's daily limit lists them.
func TestUsageCountsReflection(t *testing.T) {
	c := newConsole(t)
	if err := c.db.RecordCost(t.Context(), bot.Cost{At: c.clock.now(), Agent: "reflection", Place: "space:slack:T1", Model: "m",
		Usage: llm.Usage{InputTokens: 12000, OutputTokens: 300}, Nanos: 3_000_000, Priced: true}); err != nil {
		t.Fatal(err)
	}
	_, body := c.get(t, c.signIn(t, admin), "/usage?days=7")
	for _, want := range []string{`<td>reflection</td><td>$0.0030</td>`, `<td>space:slack:T1</td><td>$0.0030</td>`, `<td>(none)</td><td>$0.0030</td>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(body, "<td></td>") || strings.Contains(body, `<td>(none)</td><td>$0.0030</td><td><meter`) {
		t.Errorf("reflection is listed against a person's daily limit:\n%s", body)
	}
}
