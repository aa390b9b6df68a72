package config

// Tasks configures long tasks in a thread (docs/tasks.md): the todo tool,
// the checklist message, the work log, budgets that pause.
type Tasks struct {
	// Enabled switches the todo tool, the checklist, the work log and
	// /pause, /resume and /worklog.
	Enabled bool `mapstructure:"enabled"`
	// MaxSteps are the model calls a turn with a plan may make before it
	// pauses (a turn without one stops after 25).
	MaxSteps int `mapstructure:"max_steps"`
	// MaxChecks are the check steps per turn: before a task's final
	// answer the model verifies what it marked done; 0 turns them off.
	MaxChecks int `mapstructure:"max_checks"`
	// MaxHelpers, HelperDepth, HelperSteps and HelperTimeoutMinutes bound
	// the delegate tool's helpers: per call, how deep they nest (1: they
	// do not delegate), their model calls, their time once running.
	// MaxConcurrentHelpers bounds the helpers running at once, across
	// tasks.
	MaxHelpers           int `mapstructure:"max_helpers"`
	HelperDepth          int `mapstructure:"helper_depth"`
	HelperSteps          int `mapstructure:"helper_steps"`
	HelperTimeoutMinutes int `mapstructure:"helper_timeout_minutes"`
	MaxConcurrentHelpers int `mapstructure:"max_concurrent_helpers"`
}

func defaultTasks() Tasks {
	return Tasks{Enabled: true, MaxSteps: 60, MaxChecks: 2,
		MaxHelpers: 3, HelperDepth: 1, HelperSteps: 20, HelperTimeoutMinutes: 10, MaxConcurrentHelpers: 4}
}

// validate checks the tasks.* keys.
func (t *Tasks) validate() []string {
	return outOfRange(
		bound[int]{"tasks.max_steps", t.MaxSteps, 1, 1000},
		bound[int]{"tasks.max_checks", t.MaxChecks, 0, 10},
		bound[int]{"tasks.max_helpers", t.MaxHelpers, 1, 20},
		bound[int]{"tasks.helper_depth", t.HelperDepth, 1, 3},
		bound[int]{"tasks.helper_steps", t.HelperSteps, 1, 500},
		bound[int]{"tasks.helper_timeout_minutes", t.HelperTimeoutMinutes, 1, 24 * 60},
		bound[int]{"tasks.max_concurrent_helpers", t.MaxConcurrentHelpers, 1, 64},
	)
}
