package main

import (
	"context"

	"github.com/parleybot/parley/agent/guard"
	"github.com/parleybot/parley/bot"
)

// teamNotes is the core's team notes (docs/team-notes.md): every place's,
// written by memory.team.writers, edited by command through the guard the
// memory tool's writes pass, judge included. Validation has read
// memory.team.writers already; a list it let through parses.
func (a *app) teamNotes() *bot.TeamConfig {
	writers, err := bot.ParseTeamWriters(a.cfg.Memory.Team.Writers)
	if err != nil {
		// Unreachable after validation; the narrowest reading is the safe one.
		writers = bot.TeamWriters{AdminsOnly: true}
		a.logger.Error("team notes: only admins write them", "err", err)
	}
	return &bot.TeamConfig{Store: a.db, Writers: writers, Vet: func(ctx context.Context, content string, existing []string) error {
		return guard.Vet(ctx, a.judge, content, existing)
	}}
}
