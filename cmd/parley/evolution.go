package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/guard"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// skillBook is the deployment's skills, in the store (shared by every
// replica on it), at most evolution.max_skills per scope.
func skillBook(cfg *config.Config, db evolve.SkillStore) evolve.Skills {
	return evolve.Skills{Store: db, Max: cfg.Evolution.MaxSkills}
}

// legacySkillFiles is where skills were kept before the store:
// <data_dir>/skills/<scope>/<slug>.md.
func legacySkillFiles(cfg *config.Config) evolve.SkillFiles {
	return evolve.SkillFiles{Dir: filepath.Join(cfg.DataDir, "skills")}
}

// scheduleConfig is the scheduler's tuning from the evolution.* keys.
func scheduleConfig(e config.Evolution) evolve.ScheduleConfig {
	return evolve.ScheduleConfig{
		Every:      time.Duration(e.CycleHours) * time.Hour,
		Cooldown:   time.Duration(e.CooldownHours) * time.Hour,
		ForceAfter: time.Duration(e.ForceAfterDays) * 24 * time.Hour,
		MaxScopes:  e.MaxScopes,
		Weights:    weights(e),
		Budget: evolve.Budget{Calls: e.CycleCalls, Tokens: e.CycleTokens,
			Time: time.Duration(e.CycleMinutes) * time.Minute},
	}
}

func weights(e config.Evolution) evolve.Weights {
	w := e.Weights
	return evolve.Weights{Correction: w.Correction, SkillThenError: w.SkillThenError, Recovered: w.Recovered,
		Weakness: w.Weakness, Complexity: w.Complexity, ComplexToolCalls: e.ComplexToolCalls, Threshold: e.Threshold}
}

// scheduler is the background reflection of learning from use
// (docs/evolution.md) over reflector: each reflection is kept with its
// cost (reflection_log), its model calls in the costs table as agent
// "reflection", and its changes in the audit log.
func (a *app) scheduler(logger *slog.Logger) (*evolve.Scheduler, error) {
	x, err := a.reflector()
	if err != nil {
		return nil, err
	}
	return a.schedulerOver(x, logger), nil
}

func (a *app) schedulerOver(x *evolve.Reflect, logger *slog.Logger) *evolve.Scheduler {
	metrics := a.ops.metrics()
	return &evolve.Scheduler{
		Store: a.db, Reflector: x, Config: scheduleConfig(a.cfg.Evolution), Logger: logger, Log: a.db, Due: a.db,
		Spent: func(ctx context.Context, scope string, c llm.CallCost) {
			// Priced like a turn's calls, and kept in the same table, so
			// /usage and the console's Usage page count reflection as
			// the agent "reflection"; its place is the scope it learns in.
			if metrics != nil && c.Priced {
				metrics.Spent(reflectionAgent, c.Model, c.Nanos)
			}
			cost := bot.Cost{At: time.Now(), Agent: reflectionAgent, Place: scope, Model: c.Model, Usage: c.Usage, Nanos: c.Nanos, Priced: c.Priced}
			if err := a.db.RecordCost(ctx, cost); err != nil {
				logger.Error("reflection: keep a model call's cost", "scope", scope, "err", err)
			}
		},
		Done: func(ctx context.Context, r evolve.Reflected) { auditReflection(ctx, a.db, r, time.Now(), logger) },
	}
}

// reflectionAgent is who reflection's model calls are counted for.
const reflectionAgent = "reflection"

// auditReflection writes each change r made to the audit log, the actor
// "reflection": the one place reflection's own changes are audited.
func auditReflection(ctx context.Context, log bot.AuditLog, r evolve.Reflected, at time.Time, logger *slog.Logger) {
	for _, c := range r.Changes {
		action := map[string]string{"created": "skill.create", "patched": "skill.patch", "deleted": "skill.delete", "noted": "memo.update"}[c.Action]
		detail := c.Skill
		switch {
		case strings.HasPrefix(c.Action, "proposed"):
			// A change to an installed skill, not made: an admin's to decide.
			action, detail = "skill.propose", c.Skill+": "+c.Action
		case action == "":
			action = "skill." + c.Action
		}
		e := bot.AuditEntry{At: at, Actor: reflectionAgent, Action: action, Target: r.Scope, Detail: detail, Via: "reflection"}
		if err := log.Audit(ctx, e); err != nil {
			logger.Error("reflection: audit", "scope", r.Scope, "err", err)
		}
	}
}

// reflector is reflection itself: evolution.model reflects, or the main
// model; every text it writes — and every edit a person makes in the
// console — passes the memory guard, its judge included.
func (a *app) reflector() (*evolve.Reflect, error) {
	provider, model, err := a.reflectionModel()
	if err != nil {
		return nil, err
	}
	judge := a.judge
	e := a.cfg.Evolution
	return &evolve.Reflect{
		Provider: provider, Model: model, Files: skillBook(a.cfg, a.db), Runs: a.db, Sessions: a.db, Memo: a.db, Revisions: a.db, Rates: a.db,
		Guard: func(ctx context.Context, text string, existing []string) error {
			return guard.Vet(ctx, judge, text, existing)
		},
		Window:       time.Duration(e.WindowDays) * 24 * time.Hour,
		PacketTokens: e.PacketTokens,
		MaxCalls:     e.ReflectionCalls,
		Weights:      weights(e),
	}, nil
}

// reflectionModel is what reflection talks to, and the model's name at
// its server: evolution.model, or the default agent's model chain.
func (a *app) reflectionModel() (llm.Provider, string, error) {
	name := a.cfg.Evolution.Model
	if name == "" {
		_, model := a.cfg.LLM.ProviderModel()
		return a.model, model, nil
	}
	p, err := a.reg.Resolve(name)
	if err != nil {
		return nil, "", fmt.Errorf("evolution.model: %w", err)
	}
	_, model, _ := llm.SplitModel(name)
	return a.ops.provider(p), model, nil
}
