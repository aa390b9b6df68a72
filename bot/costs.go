package bot

import (
	"context"
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
	// Place is where: "platform:chat" for a channel or group, or
	// "platform:dm" for every direct message on a platform together.
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

// The groups /usage shows.
const (
	ByUser  CostGroup = "user"
	ByAgent CostGroup = "agent"
	ByPlace CostGroup = "place"
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
}
