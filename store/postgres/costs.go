package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// The costs of model calls (bot.CostBook), as store/costs.go on SQLite:
// one row per call, summed on read. sum(bigint) is numeric here, so every
// sum is cast back to bigint: exact, and an overflow is an error rather
// than a rounded total.

// costSums are the columns of a bot.CostSum after its key, in
// scanCostSum's order.
const costSums = `count(*), coalesce(sum(input_tokens), 0)::bigint, coalesce(sum(cached_tokens), 0)::bigint,
	coalesce(sum(cache_write_tokens), 0)::bigint, coalesce(sum(output_tokens), 0)::bigint,
	coalesce(sum(nanos), 0)::bigint, count(*) FILTER (WHERE NOT priced)`

// costDay is the UTC day of a cost's at, as 2006-01-02 (bot.ByDay's key,
// as SQLite writes it), whatever the session's time zone.
const costDay = `to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`

// RecordCost keeps one call's cost.
func (db *DB) RecordCost(ctx context.Context, c bot.Cost) error {
	if _, err := db.pool.Exec(ctx, `
		INSERT INTO costs (at, user_key, agent, place, session_id, model,
			input_tokens, cached_tokens, cache_write_tokens, output_tokens, nanos, priced)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		ts(c.At), c.User, c.Agent, c.Place, c.Session, c.Model,
		c.Usage.InputTokens, c.Usage.CachedTokens, c.Usage.CacheWriteTokens, c.Usage.OutputTokens, c.Nanos, c.Priced); err != nil {
		return fmt.Errorf("postgres: record cost: %w", err)
	}
	return nil
}

// SumCosts adds up the costs f selects; none is a zero sum.
func (db *DB) SumCosts(ctx context.Context, f bot.CostFilter) (bot.CostSum, error) {
	where, args := costWhere(f)
	var s bot.CostSum
	if err := scanCostSum(db.pool.QueryRow(ctx, `SELECT `+costSums+` FROM costs`+where, args...), &s); err != nil {
		return bot.CostSum{}, fmt.Errorf("postgres: sum costs: %w", err)
	}
	return s, nil
}

// CostsBy adds up the costs f selects per value of by: the dearest first,
// then the most tokens, then by key — by its bytes (COLLATE "C"), as
// SQLite orders text — at most limit groups (limit <= 0: all).
func (db *DB) CostsBy(ctx context.Context, by bot.CostGroup, f bot.CostFilter, limit int) ([]bot.CostSum, error) {
	col, err := rowdata.CostColumn(by, costDay)
	if err != nil {
		return nil, fmt.Errorf("postgres: costs by: %w", err)
	}
	where, args := costWhere(f)
	var lim any // NULL: no limit
	if limit > 0 {
		lim = limit
	}
	args = append(args, lim)
	rows, err := db.pool.Query(ctx, `
		SELECT `+col+`, `+costSums+` FROM costs`+where+`
		GROUP BY `+col+`
		ORDER BY sum(nanos) DESC, sum(input_tokens) + sum(output_tokens) DESC, `+col+` COLLATE "C"
		LIMIT $`+strconv.Itoa(len(args))+`::bigint`, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: costs by %s: %w", by, err)
	}
	out, err := collect(rows, func(row rowScanner) (bot.CostSum, error) {
		var s bot.CostSum
		err := scanCostSum(row, &s, &s.Key)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: costs by %s: %w", by, err)
	}
	return out, nil
}

// costWhere is the WHERE clause f puts on costs ("" for none) and its
// arguments, numbered from $1.
func costWhere(f bot.CostFilter) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, arg any) {
		args = append(args, arg)
		conds = append(conds, cond+" $"+strconv.Itoa(len(args)))
	}
	if !f.Since.IsZero() {
		add("at >=", ts(f.Since))
	}
	if !f.Until.IsZero() {
		add("at <", ts(f.Until))
	}
	for _, eq := range []struct{ col, v string }{
		{"user_key", f.User}, {"agent", f.Agent}, {"place", f.Place}, {"session_id", f.Session},
	} {
		if eq.v != "" {
			add(eq.col+" =", eq.v)
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
// limit.
func (db *DB) Costs(ctx context.Context, f bot.CostFilter, limit int) ([]bot.Cost, error) {
	where, args := costWhere(f)
	rows, err := db.pool.Query(ctx, `
		SELECT at, user_key, agent, place, session_id, model, input_tokens, cached_tokens, cache_write_tokens,
			output_tokens, nanos, priced
		FROM costs`+where+` ORDER BY at, id LIMIT `+strconv.Itoa(max(limit, 0)), args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: costs: %w", err)
	}
	var (
		out []bot.Cost
		c   bot.Cost
	)
	if _, err := pgx.ForEachRow(rows, []any{&c.At, &c.User, &c.Agent, &c.Place, &c.Session, &c.Model, &c.Usage.InputTokens,
		&c.Usage.CachedTokens, &c.Usage.CacheWriteTokens, &c.Usage.OutputTokens, &c.Nanos, &c.Priced}, func() error {
		r := c
		r.At = fromTS(c.At)
		out = append(out, r)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("postgres: costs: %w", err)
	}
	return out, nil
}
