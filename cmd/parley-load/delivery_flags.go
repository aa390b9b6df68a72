package main

// The flags measuring delivery: -bot-added and -env.

import (
	"flag"
	"fmt"
	"log/slog"
	"strings"
)

// delivery holds them. The bot-added latency itself is always measured
// (timeline.go) and always in the report.
type delivery struct {
	botAdded bool
	env      envFlags
}

func (d *delivery) register(fs *flag.FlagSet) {
	fs.BoolVar(&d.botAdded, "bot-added", false, "also log the latency Parley adds once the model is done (model's last chunk to the answer visible) as the run ends; the report always has it")
	fs.Var(&d.env, "env", "extra KEY=VALUE for Parley's environment (repeatable)")
}

// logBotAdded logs the bot-added latency when -bot-added asks for it.
func (d *delivery) logBotAdded(s latencyStats, logger *slog.Logger) {
	if d.botAdded {
		logger.Info("bot-added latency (model done → answer visible)", "p50", s.P50, "p90", s.P90, "p99", s.P99, "max", s.Max)
	}
}

// envFlags is -env, repeatable: extra KEY=VALUE settings for Parley, such
// as PARLEY_LIMITS_TURNS_PER_MINUTE=0 for a run whose people write faster
// than the per-person limit lets them.
type envFlags []string

func (e *envFlags) String() string { return strings.Join(*e, ",") }

func (e *envFlags) Set(v string) error {
	if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
		return fmt.Errorf("%q: want KEY=VALUE", v)
	}
	*e = append(*e, v)
	return nil
}
