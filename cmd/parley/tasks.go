package main

import (
	"log/slog"
	"sync"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// taskParts are what tasks.* give the runner (docs/tasks.md): the todo,
// delegate and wait tools, the plans (given to the model at every step) and the
// task's budgets. The chat side — the checklist, the work log, /pause and
// /resume — is the core's, over the same store (assemble).
type taskParts struct {
	tools         []agent.Tool
	plans         agent.Plans
	steps, checks int
}

func newTaskParts(db backend, c config.Tasks, pauses *pauseRelay, logger *slog.Logger) (*taskParts, error) {
	tasks := task.Tasks{Store: db}
	todo, err := tasks.Todo()
	if err != nil {
		return nil, err
	}
	delegate, err := task.Delegation{
		Tasks: tasks, Helpers: db, Slots: task.NewSlots(c.MaxConcurrentHelpers),
		Limits: task.Limits{MaxHelpers: c.MaxHelpers, Depth: c.HelperDepth, Steps: c.HelperSteps,
			Timeout: time.Duration(c.HelperTimeoutMinutes) * time.Minute},
		Pause: pauses.asked, Logger: logger,
	}.Tool()
	if err != nil {
		return nil, err
	}
	// On the runner's clock (its Sleep): real outside tests.
	wait, err := task.Wait(nil)
	if err != nil {
		return nil, err
	}
	p := &taskParts{tools: []agent.Tool{todo, delegate, wait}, plans: tasks, steps: c.MaxSteps, checks: c.MaxChecks}
	if c.MaxChecks == 0 {
		p.checks = -1 // the runner reads 0 as "the default"
	}
	return p, nil
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
