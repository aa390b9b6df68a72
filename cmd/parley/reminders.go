package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// reminderParts are reminders and scheduled runs (docs/reminders.md):
// the remind and schedule tools, each person's time zone, and the loop
// that delivers what falls due.
type reminderParts struct {
	tools []agent.Tool
	zones bot.Zones
	loop  *remind.Loop
}

func newReminderParts(a *app, adapters []chat.Adapter, logger *slog.Logger) (*reminderParts, error) {
	c := a.cfg.Reminders
	loc, err := bot.LoadZone(c.DefaultZone)
	if err != nil {
		return nil, err
	}
	zones := bot.Zones{KV: a.db, Adapters: adapters, Default: loc}
	loop := &remind.Loop{Store: a.db, Grace: time.Duration(c.GraceMinutes) * time.Minute, Logger: logger.With("part", "reminders")}
	tools, err := remind.Tools(remind.ToolConfig{Items: a.db, Zones: zones, Wake: loop.Wake,
		MinInterval: time.Duration(c.MinIntervalMinutes) * time.Minute, MaxActive: c.MaxPerPerson})
	if err != nil {
		return nil, err
	}
	return &reminderParts{tools: tools, zones: zones, loop: loop}, nil
}

// remindersCheck is parley doctor's line on reminders and schedules: how
// many wait, the next one due, and anything overdue or not yet delivered
// (the loop runs only while Parley does).
func remindersCheck(ctx context.Context, cfg *config.Config, now time.Time) (string, error) {
	if !cfg.Reminders.Enabled {
		return "off (reminders.enabled: false)", nil
	}
	if _, err := bot.LoadZone(cfg.Reminders.DefaultZone); err != nil {
		return "", fmt.Errorf("reminders.default_zone: %w", err)
	}
	db, err := openStore(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		return "", err
	}
	defer db.Close()
	s, err := db.ReminderStats(ctx, now)
	if err != nil {
		return "", err
	}
	parts := []string{fmt.Sprintf("%d active, %d paused", s.Active, s.Paused)}
	if !s.Next.IsZero() {
		parts = append(parts, "next due "+s.Next.UTC().Format("2006-01-02 15:04 MST"))
	}
	if s.Overdue > 0 {
		parts = append(parts, fmt.Sprintf("%d overdue (delivered when Parley runs, late or reported missed)", s.Overdue))
	}
	if s.Undelivered > 0 {
		parts = append(parts, fmt.Sprintf("%d claimed, not yet delivered", s.Undelivered))
	}
	return strings.Join(parts, "; "), nil
}
