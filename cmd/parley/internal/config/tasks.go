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
}

func defaultTasks() Tasks {
	return Tasks{Enabled: true, MaxSteps: 60, MaxChecks: 2}
}

// validate checks the tasks.* keys.
func (t *Tasks) validate() []string {
	return outOfRange(
		bound[int]{"tasks.max_steps", t.MaxSteps, 1, 1000},
		bound[int]{"tasks.max_checks", t.MaxChecks, 0, 10},
	)
}
