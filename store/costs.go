package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// The costs of model calls (bot.CostBook): one row per call, summed on
// read. The sums are SQL's, over integers, so a total of billionths of a
// dollar is exact however many rows it adds.

// costSums are the columns of a bot.CostSum after its key, in scanCostSum's
// order. sum(NOT priced) counts the unpriced calls (NOT 0 is 1).
const costSums = `count(*), coalesce(sum(input_tokens), 0), coalesce(sum(cached_tokens), 0),
	coalesce(sum(cache_write_tokens), 0), coalesce(sum(output_tokens), 0), coalesce(sum(nanos), 0),
	coalesce(sum(NOT priced), 0)`

// costDay is the UTC day of a cost's at (milliseconds since 1970), as
// 2006-01-02: bot.ByDay's key.
const costDay = `strftime('%Y-%m-%d', at / 1000, 'unixepoch')`

// RecordCost keeps one call's cost.
func (db *DB) RecordCost(ctx context.Context, c bot.Cost) error {
	if _, err := db.w.ExecContext(ctx, `
		INSERT INTO costs (at, user_key, agent, place, session_id, model,
			input_tokens, cached_tokens, cache_write_tokens, output_tokens, nanos, priced)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		millis(c.At), c.User, c.Agent, c.Place, c.Session, c.Model,
		c.Usage.InputTokens, c.Usage.CachedTokens, c.Usage.CacheWriteTokens, c.Usage.OutputTokens, c.Nanos, c.Priced); err != nil {
		return fmt.Errorf("store: record cost: %w", err)
	}
	return nil
}

// SumCosts adds up the costs f selects; none is a zero sum.
func (db *DB) SumCosts(ctx context.Context, f bot.CostFilter) (bot.CostSum, error) {
	where, args := costWhere(f)
	var s bot.CostSum
	if err := scanCostSum(db.r.QueryRowContext(ctx, `SELECT `+costSums+` FROM costs`+where, args...), &s); err != nil {
		return bot.CostSum{}, fmt.Errorf("store: sum costs: %w", err)
	}
	return s, nil
}

// CostsBy adds up the costs f selects per value of by: the dearest first,
// then the most tokens, then by key (its bytes), at most limit groups
// (limit <= 0: all).
func (db *DB) CostsBy(ctx context.Context, by bot.CostGroup, f bot.CostFilter, limit int) ([]bot.CostSum, error) {
	col, err := rowdata.CostColumn(by, costDay)
	if err != nil {
		return nil, fmt.Errorf("store: costs by: %w", err)
	}
	if limit <= 0 {
		limit = -1 // SQLite's "no limit"
	}
	where, args := costWhere(f)
	rows, err := db.r.QueryContext(ctx, `
		SELECT `+col+`, `+costSums+` FROM costs`+where+`
		GROUP BY `+col+`
		ORDER BY sum(nanos) DESC, sum(input_tokens) + sum(output_tokens) DESC, `+col+`
		LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: costs by %s: %w", by, err)
	}
	defer rows.Close()
	var out []bot.CostSum
	for rows.Next() {
		var s bot.CostSum
		if err := scanCostSum(rows, &s, &s.Key); err != nil {
			return nil, fmt.Errorf("store: costs by %s: %w", by, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: costs by %s: %w", by, err)
	}
	return out, nil
}

// costWhere is the WHERE clause f puts on costs ("" for none) and its
// arguments.
func costWhere(f bot.CostFilter) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, arg any) {
		conds = append(conds, cond)
		args = append(args, arg)
	}
	if !f.Since.IsZero() {
		add("at >= ?", millis(f.Since))
	}
	if !f.Until.IsZero() {
		add("at < ?", millis(f.Until))
	}
	for _, eq := range []struct{ col, v string }{
		{"user_key", f.User}, {"agent", f.Agent}, {"place", f.Place}, {"session_id", f.Session},
	} {
		if eq.v != "" {
			add(eq.col+" = ?", eq.v)
		}
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// scanCostSum scans the leading columns into lead, then costSums into s.
func scanCostSum(row rowScanner, s *bot.CostSum, lead ...any) error {
	return row.Scan(append(lead, &s.Calls, &s.Usage.InputTokens, &s.Usage.CachedTokens,
		&s.Usage.CacheWriteTokens, &s.Usage.OutputTokens, &s.Nanos, &s.Unpriced)...)
}

// Costs lists the costs f selects, one row a call, oldest first, at most
// limit (a conversation's, for its transcript's cost per turn).
func (db *DB) Costs(ctx context.Context, f bot.CostFilter, limit int) ([]bot.Cost, error) {
	where, args := costWhere(f)
	rows, err := db.r.QueryContext(ctx, `
		SELECT at, user_key, agent, place, session_id, model, input_tokens, cached_tokens, cache_write_tokens,
			output_tokens, nanos, priced
		FROM costs`+where+` ORDER BY at, id LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: costs: %w", err)
	}
	defer rows.Close()
	var out []bot.Cost
	for rows.Next() {
		var (
			c  bot.Cost
			at int64
		)
		if err := rows.Scan(&at, &c.User, &c.Agent, &c.Place, &c.Session, &c.Model, &c.Usage.InputTokens, &c.Usage.CachedTokens,
			&c.Usage.CacheWriteTokens, &c.Usage.OutputTokens, &c.Nanos, &c.Priced); err != nil {
			return nil, fmt.Errorf("store: costs: %w", err)
		}
		c.At = fromMillis(at)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: costs: %w", err)
	}
	return out, nil
}
