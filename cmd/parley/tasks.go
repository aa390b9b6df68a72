package main

import (
	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/store"
)

// withTasks gives the runner long tasks (docs/tasks.md): the todo tool,
// the plans it keeps (given to the model at every step) and the task's
// budgets. The chat side — the checklist, the work log, /pause and
// /resume — is the core's, over the same store (coreConfig).
func withTasks(r *agent.Runner, db *store.DB, c config.Tasks) error {
	tasks := task.Tasks{Store: db}
	todo, err := tasks.Todo()
	if err != nil {
		return err
	}
	r.Tools = append(r.Tools, todo)
	r.Plans, r.TaskSteps, r.MaxChecks = tasks, c.MaxSteps, c.MaxChecks
	if c.MaxChecks == 0 {
		r.MaxChecks = -1 // the runner reads 0 as "the default"
	}
	return nil
}
