package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
)

// costTests cover bot.CostBook: the costs of model calls, summed as /usage,
// /status and the limits read them.
var costTests = []test{
	{"Sum", testCostSum},
	{"By", testCostsBy},
	{"ByDay", testCostsByDay},
	{"ExactSums", testCostExactSums},
	{"BadGroup", testCostBadGroup},
	{"Reopen", testCostReopen},
	{"Rows", testCostRows},
}

// costAt is when the i-th of costRows was made: a minute apart, each a
// few milliseconds past its minute so that the bounds are tested to the
// millisecond.
func costAt(i int) time.Time {
	return epoch.Add(time.Duration(i)*time.Minute + 7*time.Millisecond)
}

// costRows are the calls most tests record. By user, all of them sum to
//
//	slack:U2  5000 nanos, 1000 tokens (one call unpriced)
//	slack:U1  5000 nanos,  300 tokens: as dear, fewer tokens
//	slack:UB  2000 nanos,  100 tokens
//	slack:Ua  2000 nanos,  100 tokens: a tie broken by key, by its bytes
//	          ("B" < "a", though a locale's order has them the other way)
//	slack:U9     0 nanos,   20 tokens: a free model, priced
var costRows = []bot.Cost{
	{At: costAt(0), User: "slack:U1", Agent: "main", Place: "slack:C1", Session: "s1", Model: "anthropic/a",
		Usage: llm.Usage{InputTokens: 100, OutputTokens: 50, CachedTokens: 10, CacheWriteTokens: 5}, Nanos: 3000, Priced: true},
	{At: costAt(1), User: "slack:U1", Agent: "ops", Place: "slack:dm", Session: "s2", Model: "openai/b",
		Usage: llm.Usage{InputTokens: 50, OutputTokens: 100, CachedTokens: 20}, Nanos: 2000, Priced: true},
	{At: costAt(2), User: "slack:U2", Agent: "main", Place: "slack:C1", Session: "s1", Model: "anthropic/a",
		Usage: llm.Usage{InputTokens: 300, OutputTokens: 200, CacheWriteTokens: 40}, Nanos: 5000, Priced: true},
	{At: costAt(3), User: "slack:UB", Agent: "ops", Place: "telegram:dm", Session: "s3", Model: "openai/b",
		Usage: llm.Usage{InputTokens: 60, OutputTokens: 40}, Nanos: 2000, Priced: true},
	{At: costAt(4), User: "slack:Ua", Agent: "main", Place: "telegram:dm", Session: "s4", Model: "anthropic/a",
		Usage: llm.Usage{InputTokens: 70, OutputTokens: 30, CachedTokens: 3}, Nanos: 2000, Priced: true},
	{At: costAt(5), User: "slack:U2", Agent: "ops", Place: "slack:dm", Session: "s5", Model: "local/unknown",
		Usage: llm.Usage{InputTokens: 400, OutputTokens: 100}},
	{At: costAt(6), User: "slack:U9", Agent: "main", Place: "slack:C1", Session: "s6", Model: "local/free",
		Usage: llm.Usage{InputTokens: 10, OutputTokens: 10}, Priced: true},
}

// recordCosts records costRows into a fresh database and returns it.
func recordCosts(t *testing.T, s suite) (Store, func() Store) {
	t.Helper()
	db, reopen := s.open(t, Options{})
	for i, c := range costRows {
		if err := db.RecordCost(t.Context(), c); err != nil {
			t.Fatalf("RecordCost(row %d): %v", i, err)
		}
	}
	return db, reopen
}

// sumOf adds up the costRows at the indices given, keyed key.
func sumOf(key string, rows ...int) bot.CostSum {
	s := bot.CostSum{Key: key}
	for _, i := range rows {
		c := costRows[i]
		s.Calls++
		s.Usage = s.Usage.Add(c.Usage)
		s.Nanos += c.Nanos
		if !c.Priced {
			s.Unpriced++
		}
	}
	return s
}

func testCostSum(t *testing.T, s suite) {
	db, _ := s.open(t, Options{})
	ctx := t.Context()
	if got, err := db.SumCosts(ctx, bot.CostFilter{}); err != nil || got != (bot.CostSum{}) {
		t.Fatalf("an empty store sums to %+v, %v; want a zero sum", got, err)
	}
	db, _ = recordCosts(t, s)
	const ms = time.Millisecond
	for _, tt := range []struct {
		name string
		f    bot.CostFilter
		want []int // indices into costRows; none: a zero sum
	}{
		{"everything", bot.CostFilter{}, []int{0, 1, 2, 3, 4, 5, 6}},
		{"user", bot.CostFilter{User: "slack:U1"}, []int{0, 1}},
		{"user with an unpriced call", bot.CostFilter{User: "slack:U2"}, []int{2, 5}},
		{"agent", bot.CostFilter{Agent: "ops"}, []int{1, 3, 5}},
		{"place", bot.CostFilter{Place: "slack:C1"}, []int{0, 2, 6}},
		{"session", bot.CostFilter{Session: "s1"}, []int{0, 2}},
		{"user and agent", bot.CostFilter{User: "slack:U1", Agent: "main"}, []int{0}},
		{"place and session", bot.CostFilter{Place: "slack:dm", Session: "s5"}, []int{5}},
		{"since is inclusive", bot.CostFilter{Since: costAt(2)}, []int{2, 3, 4, 5, 6}},
		{"since a millisecond later", bot.CostFilter{Since: costAt(2).Add(ms)}, []int{3, 4, 5, 6}},
		{"until is exclusive", bot.CostFilter{Until: costAt(2)}, []int{0, 1}},
		{"until a millisecond later", bot.CostFilter{Until: costAt(2).Add(ms)}, []int{0, 1, 2}},
		{"a window", bot.CostFilter{Since: costAt(1), Until: costAt(4)}, []int{1, 2, 3}},
		{"a window and a place", bot.CostFilter{Since: costAt(1), Until: costAt(4), Place: "slack:C1"}, []int{2}},
		{"a zone other than UTC", bot.CostFilter{Since: costAt(5).In(time.FixedZone("UTC+9", 9*3600))}, []int{5, 6}},
		{"after the last", bot.CostFilter{Since: costAt(6).Add(ms)}, nil},
		{"since after until", bot.CostFilter{Since: costAt(4), Until: costAt(2)}, nil},
		{"an empty window", bot.CostFilter{Since: costAt(3), Until: costAt(3)}, nil},
		{"an unknown user", bot.CostFilter{User: "slack:U404"}, nil},
		{"fields no row has together", bot.CostFilter{User: "slack:U1", Session: "s3"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := bot.CostSum{}
			if len(tt.want) > 0 {
				want = sumOf("", tt.want...)
			}
			got, err := db.SumCosts(ctx, tt.f)
			if err != nil {
				t.Fatalf("SumCosts(%+v): %v", tt.f, err)
			}
			if got != want {
				t.Errorf("SumCosts(%+v) = %+v, want %+v", tt.f, got, want)
			}
		})
	}
}

func testCostsBy(t *testing.T, s suite) {
	db, _ := recordCosts(t, s)
	ctx := t.Context()
	byUser := []bot.CostSum{
		sumOf("slack:U2", 2, 5), sumOf("slack:U1", 0, 1), sumOf("slack:UB", 3), sumOf("slack:Ua", 4), sumOf("slack:U9", 6),
	}
	for _, tt := range []struct {
		name  string
		by    bot.CostGroup
		f     bot.CostFilter
		limit int
		want  []bot.CostSum
	}{
		// Dearest first; as dear, more tokens first; then by key.
		{"user", bot.ByUser, bot.CostFilter{}, 0, byUser},
		{"user, no limit", bot.ByUser, bot.CostFilter{}, -1, byUser},
		{"user, limit above the groups", bot.ByUser, bot.CostFilter{}, 10, byUser},
		{"user, limit", bot.ByUser, bot.CostFilter{}, 2, byUser[:2]},
		{"user, limit in a tie", bot.ByUser, bot.CostFilter{}, 3, byUser[:3]},
		{"user, since", bot.ByUser, bot.CostFilter{Since: costAt(3)}, 0, []bot.CostSum{
			sumOf("slack:UB", 3), sumOf("slack:Ua", 4), sumOf("slack:U2", 5), sumOf("slack:U9", 6),
		}},
		{"user, until", bot.ByUser, bot.CostFilter{Until: costAt(2)}, 0, []bot.CostSum{sumOf("slack:U1", 0, 1)}},
		{"user, of an agent", bot.ByUser, bot.CostFilter{Agent: "ops"}, 0, []bot.CostSum{
			sumOf("slack:U1", 1), sumOf("slack:UB", 3), sumOf("slack:U2", 5),
		}},
		{"agent", bot.ByAgent, bot.CostFilter{}, 0, []bot.CostSum{sumOf("main", 0, 2, 4, 6), sumOf("ops", 1, 3, 5)}},
		{"agent, limit", bot.ByAgent, bot.CostFilter{}, 1, []bot.CostSum{sumOf("main", 0, 2, 4, 6)}},
		{"agent, of a user", bot.ByAgent, bot.CostFilter{User: "slack:U1"}, 0, []bot.CostSum{sumOf("main", 0), sumOf("ops", 1)}},
		{"agent, of a session", bot.ByAgent, bot.CostFilter{Session: "s5"}, 0, []bot.CostSum{sumOf("ops", 5)}},
		{"place", bot.ByPlace, bot.CostFilter{}, 0, []bot.CostSum{
			sumOf("slack:C1", 0, 2, 6), sumOf("telegram:dm", 3, 4), sumOf("slack:dm", 1, 5),
		}},
		{"place, of an agent", bot.ByPlace, bot.CostFilter{Agent: "main"}, 0, []bot.CostSum{
			sumOf("slack:C1", 0, 2, 6), sumOf("telegram:dm", 4),
		}},
		{"place, a window", bot.ByPlace, bot.CostFilter{Since: costAt(1), Until: costAt(4)}, 0, []bot.CostSum{
			sumOf("slack:C1", 2), sumOf("slack:dm", 1), sumOf("telegram:dm", 3),
		}},
		{"nothing selected", bot.ByPlace, bot.CostFilter{User: "slack:U404"}, 0, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.CostsBy(ctx, tt.by, tt.f, tt.limit)
			if err != nil {
				t.Fatalf("CostsBy(%q, %+v, %d): %v", tt.by, tt.f, tt.limit, err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("CostsBy(%q, %+v, %d) (-want +got):\n%s", tt.by, tt.f, tt.limit, diff)
			}
		})
	}
}

// testCostExactSums: the sums are integers, exact past float64's 2^53,
// and the grouping's order compares them exactly too.
func testCostExactSums(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	const big = 1<<53 + 1 // float64 cannot hold it
	for i, c := range []bot.Cost{
		{User: "a", Nanos: big, Usage: llm.Usage{InputTokens: 1 << 40}},
		{User: "a", Nanos: big, Usage: llm.Usage{InputTokens: 1 << 40}},
		{User: "a", Nanos: big, Usage: llm.Usage{InputTokens: 1}},
		{User: "b", Nanos: 3*big - 1},
		{User: "b", Nanos: 1},
		{User: "c", Nanos: 3*big + 1},
	} {
		c.At, c.Agent, c.Priced = epoch.Add(time.Duration(i)*time.Second), "main", true
		if err := db.RecordCost(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.SumCosts(ctx, bot.CostFilter{User: "a"})
	if want := (bot.CostSum{Calls: 3, Usage: llm.Usage{InputTokens: 1<<41 + 1}, Nanos: 3 * big}); err != nil || got != want {
		t.Errorf("SumCosts = %+v, %v; want %+v", got, err, want)
	}
	// c is dearer than a and b by a billionth of a billionth; a and b tie
	// on nanos, and a has the tokens.
	groups, err := db.CostsBy(ctx, bot.ByUser, bot.CostFilter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	var nanos []int64
	for _, g := range groups {
		keys, nanos = append(keys, g.Key), append(nanos, g.Nanos)
	}
	if want := []string{"c", "a", "b"}; !cmp.Equal(keys, want) {
		t.Errorf("CostsBy(user) keys = %q, want %q", keys, want)
	}
	if want := []int64{3*big + 1, 3 * big, 3 * big}; !cmp.Equal(nanos, want) {
		t.Errorf("CostsBy(user) nanos = %d, want %d", nanos, want)
	}
}

// testCostBadGroup: a group CostsBy does not know is refused, whatever it
// looks like, and touches nothing.
func testCostBadGroup(t *testing.T, s suite) {
	db, _ := recordCosts(t, s)
	ctx := t.Context()
	for _, by := range []bot.CostGroup{"", "model", "User", "Day", "days", "user_key", "session", "user_key; DROP TABLE costs"} {
		t.Run(fmt.Sprintf("%q", by), func(t *testing.T) {
			if got, err := db.CostsBy(ctx, by, bot.CostFilter{}, 0); err == nil {
				t.Errorf("CostsBy(%q) = %+v, nil; want an error", by, got)
			}
		})
	}
	if got, err := db.SumCosts(ctx, bot.CostFilter{}); err != nil || got.Calls != len(costRows) {
		t.Errorf("after the refusals, SumCosts = %+v, %v; want %d calls", got, err, len(costRows))
	}
}

// testCostReopen: the costs outlive a restart.
func testCostReopen(t *testing.T, s suite) {
	db, reopen := recordCosts(t, s)
	ctx := t.Context()
	closeNow(t, db)
	db = reopen()
	got, err := db.SumCosts(ctx, bot.CostFilter{})
	if want := sumOf("", 0, 1, 2, 3, 4, 5, 6); err != nil || got != want {
		t.Errorf("after a restart, SumCosts = %+v, %v; want %+v", got, err, want)
	}
	groups, err := db.CostsBy(ctx, bot.ByPlace, bot.CostFilter{Session: "s1"}, 0)
	if want := []bot.CostSum{sumOf("slack:C1", 0, 2)}; err != nil || !cmp.Equal(groups, want) {
		t.Errorf("after a restart, CostsBy(place, s1) = %+v, %v; want %+v", groups, err, want)
	}
}

// testCostsByDay: bot.ByDay sums per UTC day, keyed 2006-01-02, its bounds
// exact to the millisecond whatever zone the times were given in, and the
// filters and the order as for the other groups.
func testCostsByDay(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	tokyo := time.FixedZone("UTC+9", 9*3600)
	rows := []bot.Cost{
		{At: day, User: "a", Nanos: 1000},                                      // the first instant of the 1st
		{At: day.Add(24*time.Hour - time.Millisecond), User: "b", Nanos: 2000}, // its last
		{At: day.Add(24 * time.Hour).In(tokyo), User: "a", Nanos: 500},         // the 2nd, 09:00 in Tokyo
		{At: day.Add(24*time.Hour + 8*time.Hour), User: "a", Nanos: 500, Usage: llm.Usage{InputTokens: 10}},
		{At: day.AddDate(0, 0, 3).Add(12 * time.Hour), User: "b", Usage: llm.Usage{OutputTokens: 5}}, // unpriced
	}
	for i, c := range rows {
		c.Agent, c.Priced = "main", c.Nanos > 0
		if err := db.RecordCost(ctx, c); err != nil {
			t.Fatalf("RecordCost(row %d): %v", i, err)
		}
	}
	first := bot.CostSum{Key: "2026-11-01", Calls: 2, Nanos: 3000}
	second := bot.CostSum{Key: "2026-11-02", Calls: 2, Nanos: 1000, Usage: llm.Usage{InputTokens: 10}}
	fourth := bot.CostSum{Key: "2026-11-04", Calls: 1, Usage: llm.Usage{OutputTokens: 5}, Unpriced: 1}
	for _, tt := range []struct {
		name  string
		f     bot.CostFilter
		limit int
		want  []bot.CostSum
	}{
		{"every day, the dearest first", bot.CostFilter{}, 0, []bot.CostSum{first, second, fourth}},
		{"limit", bot.CostFilter{}, 1, []bot.CostSum{first}},
		{"a window of whole days", bot.CostFilter{Since: day.AddDate(0, 0, 1), Until: day.AddDate(0, 0, 4)}, 0, []bot.CostSum{second, fourth}},
		{"a window ending in the first day's last millisecond", bot.CostFilter{Until: day.Add(24*time.Hour - time.Millisecond)}, 0,
			[]bot.CostSum{{Key: "2026-11-01", Calls: 1, Nanos: 1000}}},
		{"a person", bot.CostFilter{User: "b"}, 0, []bot.CostSum{{Key: "2026-11-01", Calls: 1, Nanos: 2000}, fourth}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.CostsBy(ctx, bot.ByDay, tt.f, tt.limit)
			if err != nil {
				t.Fatalf("CostsBy(day, %+v, %d): %v", tt.f, tt.limit, err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("CostsBy(day, %+v, %d) (-want +got):\n%s", tt.f, tt.limit, diff)
			}
		})
	}
}

// testCostRows: Costs lists the rows a filter selects, oldest first, as
// recorded, at most limit.
func testCostRows(t *testing.T, s suite) {
	db, _ := recordCosts(t, s)
	ctx := t.Context()
	for _, tt := range []struct {
		name  string
		f     bot.CostFilter
		limit int
		want  []int
	}{
		{"a session", bot.CostFilter{Session: "s1"}, 100, []int{0, 2}},
		{"everything", bot.CostFilter{}, 100, []int{0, 1, 2, 3, 4, 5, 6}},
		{"limited", bot.CostFilter{}, 3, []int{0, 1, 2}},
		{"a window", bot.CostFilter{Since: costAt(1), Until: costAt(4)}, 100, []int{1, 2, 3}},
		{"none", bot.CostFilter{Session: "s404"}, 100, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.Costs(ctx, tt.f, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			var want []bot.Cost
			for _, i := range tt.want {
				want = append(want, costRows[i])
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateApproxTime(0)); diff != "" {
				t.Errorf("Costs(%+v, %d) (-want +got):\n%s", tt.f, tt.limit, diff)
			}
		})
	}
}
