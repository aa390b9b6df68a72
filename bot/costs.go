package bot

import (
	"context"
	"fmt"
	"time"

	"github.com/parleybot/parley/agent/llm"
)

// Costs in money (docs/costs.md): every model call a turn makes is kept
// as one Cost, with who it acted for, the agent, the place and the model,
// so that /status, /usage, the limits and /metrics all count the same
// rows.

// Cost is one model call's use and price.
type Cost struct {
	At time.Time
	// User is who the turn acted for ("platform:id").
	User string
	// Agent is the agent that ran the turn.
	Agent string
	// Place is where, as bindings name places: a channel or group
	// (slack:channel:C0123), or a platform's direct messages together
	// (telegram:dm).
	Place string
	// Session is the conversation's session id.
	Session string
	// Model is the "provider/model" that answered the call.
	Model string
	Usage llm.Usage
	// Nanos is the price in billionths of a US dollar, 0 when the model
	// has no known price (Priced is false).
	Nanos  int64
	Priced bool
}

// CostFilter selects costs; a zero field selects every value.
type CostFilter struct {
	// Since and Until bound At: Since <= At < Until.
	Since, Until time.Time
	User         string
	Agent        string
	Place        string
	Session      string
}

// CostGroup is what CostsBy groups by.
type CostGroup string

// The groups /usage and the console show.
const (
	ByUser  CostGroup = "user"
	ByAgent CostGroup = "agent"
	ByPlace CostGroup = "place"
	// ByDay groups by UTC day, keyed as time.DateOnly (2026-12-06): one
	// query for a chart of days, summed where the rows are.
	ByDay CostGroup = "day"
)

// CostSum adds up costs: of one group (Key its value) or of all selected
// (Key "").
type CostSum struct {
	Key   string
	Calls int
	Usage llm.Usage
	Nanos int64
	// Unpriced counts the calls of models without a known price.
	Unpriced int
}

// CostBook keeps the costs (both store engines implement it).
type CostBook interface {
	// RecordCost keeps one call's cost.
	RecordCost(ctx context.Context, c Cost) error
	// SumCosts adds up the costs f selects.
	SumCosts(ctx context.Context, f CostFilter) (CostSum, error)
	// CostsBy adds up the costs f selects per value of by, the dearest
	// first (then the most tokens, then by key), at most limit groups
	// (limit <= 0: all).
	CostsBy(ctx context.Context, by CostGroup, f CostFilter, limit int) ([]CostSum, error)
	// Costs lists the costs f selects, one row a call, oldest first, at
	// most limit (a transcript's cost per turn).
	Costs(ctx context.Context, f CostFilter, limit int) ([]Cost, error)
}

// CostKey is a group's key for people: calls made for no one in
// particular (reflection's) have no person and no session, and read as
// "(none)".
func CostKey(key string) string {
	if key == "" {
		return "(none)"
	}
	return key
}

// Nanos is an amount of US dollars in nanodollars, the unit costs are
// kept in.
func Nanos(dollars float64) int64 { return int64(dollars*1e9 + 0.5) }

// Dollars writes an amount of nanodollars for people, the same in chat
// and in the console: cents from a dollar up ($12.34), four decimals
// below ($0.0046), "<$0.0001" for less but not nothing. Integer
// arithmetic, so the same amount always reads the same.
func Dollars(n int64) string {
	switch {
	case n == 0:
		return "$0"
	case n < 0:
		return "-" + Dollars(-n)
	case n >= 1e9:
		cents := (n + 5e6) / 1e7
		return fmt.Sprintf("$%s.%02d", Thousands(int(cents/100)), cents%100)
	case n < 5e4: // rounds to nothing
		return "<$0.0001"
	}
	tenth := (n + 5e4) / 1e5 // ten-thousandths of a dollar
	if tenth >= 1e4 {
		return "$1.00"
	}
	return fmt.Sprintf("$0.%04d", tenth)
}
