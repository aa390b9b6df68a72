package main

import (
	"log/slog"
	"time"

	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/bot"
)

// withReminders adds reminders and scheduled runs (docs/reminders.md) to
// the core: the remind and schedule tools, each person's time zone, and
// the loop that delivers what falls due.
func withReminders(cc *bot.CoreConfig, a *app, adapters []bot.Adapter, logger *slog.Logger) error {
	c := a.cfg.Reminders
	loc, err := bot.LoadZone(c.DefaultZone)
	if err != nil {
		return err
	}
	zones := bot.Zones{KV: a.db, Adapters: adapters, Default: loc}
	loop := &remind.Loop{Store: a.db, Grace: time.Duration(c.GraceMinutes) * time.Minute, Logger: logger.With("part", "reminders")}
	tools, err := remind.Tools(remind.ToolConfig{Items: a.db, Zones: zones, Wake: loop.Wake,
		MinInterval: time.Duration(c.MinIntervalMinutes) * time.Minute, MaxActive: c.MaxPerPerson})
	if err != nil {
		return err
	}
	a.runner.Tools = append(a.runner.Tools, tools...)
	cc.Reminders, cc.ReminderLoop, cc.Zones = a.db, loop, zones
	return nil
}
