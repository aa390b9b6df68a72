package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/guard"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// skillFiles is where skills are kept: <data_dir>/skills/<scope>/, at
// most evolution.max_skills per scope.
func skillFiles(cfg *config.Config) evolve.SkillFiles {
	return evolve.SkillFiles{Dir: filepath.Join(cfg.DataDir, "skills"), Max: cfg.Evolution.MaxSkills}
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
// (docs/evolution.md): evolution.model reflects, or the main model; every
// text it writes passes the memory guard, its judge included.
func (a *app) scheduler(logger *slog.Logger) (*evolve.Scheduler, error) {
	provider, model, err := a.reflectionModel()
	if err != nil {
		return nil, err
	}
	judge := a.judge
	e := a.cfg.Evolution
	return &evolve.Scheduler{
		Store: a.db,
		Reflector: &evolve.Reflect{
			Provider: provider, Model: model, Files: skillFiles(a.cfg), Runs: a.db, Sessions: a.db, Memo: a.db, Revisions: a.db,
			Guard: func(ctx context.Context, text string, existing []string) error {
				return guard.Vet(ctx, judge, text, existing)
			},
			Window:       time.Duration(e.WindowDays) * 24 * time.Hour,
			PacketTokens: e.PacketTokens,
			MaxCalls:     e.ReflectionCalls,
			Weights:      weights(e),
		},
		Config: scheduleConfig(e),
		Logger: logger,
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
