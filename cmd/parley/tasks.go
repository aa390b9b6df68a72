package main

import (
	"sync"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// withTasks gives the runner long tasks (docs/tasks.md): the todo tool,
// the plans it keeps (given to the model at every step), the task's
// budgets, and the delegate tool's helpers. The chat side — the
// checklist, the work log, /pause and /resume — is the core's, over the
// same store (coreConfig).
func withTasks(r *agent.Runner, db backend, c config.Tasks, pauses *pauseRelay) error {
	tasks := task.Tasks{Store: db}
	todo, err := tasks.Todo()
	if err != nil {
		return err
	}
	delegate, err := task.Delegation{
		Tasks: tasks, Helpers: db, Runner: r, Slots: task.NewSlots(c.MaxConcurrentHelpers),
		Limits: task.Limits{MaxHelpers: c.MaxHelpers, Depth: c.HelperDepth, Steps: c.HelperSteps,
			Timeout: time.Duration(c.HelperTimeoutMinutes) * time.Minute},
		Pause: pauses.asked,
	}.Tool()
	if err != nil {
		return err
	}
	r.Tools = append(r.Tools, todo, delegate)
	r.Plans, r.TaskSteps, r.MaxChecks = tasks, c.MaxSteps, c.MaxChecks
	if c.MaxChecks == 0 {
		r.MaxChecks = -1 // the runner reads 0 as "the default"
	}
	return nil
}

// pauseRelay asks the chat core whether a task was asked to pause, for
// its helpers: the delegate tool is built before the core is.
type pauseRelay struct {
	mu  sync.Mutex
	ask func(sessionID string) bool
}

// set points the relay at the core.
func (p *pauseRelay) set(ask func(sessionID string) bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ask = ask
}

func (p *pauseRelay) asked(sessionID string) bool {
	p.mu.Lock()
	ask := p.ask
	p.mu.Unlock()
	return ask != nil && ask(sessionID)
}
