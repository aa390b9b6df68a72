package rowdata

import (
	"encoding/json"

	"github.com/parleybot/parley/agent/task"
)

// EncodePlan returns the tasks table's plan column: the plan's own JSON.
// The text, not a []byte: SQLite's STRICT TEXT column rejects a BLOB.
func EncodePlan(p task.Plan) (string, error) {
	b, err := json.Marshal(p)
	return string(b), err
}

// DecodePlan reads a plan column back.
func DecodePlan(s string) (task.Plan, error) {
	var p task.Plan
	err := json.Unmarshal([]byte(s), &p)
	return p, err
}

// EditPlan runs edit on a task's plan, read in the transaction that will
// write it back: task.ErrNoPlan when the session has no task (ok false).
// It returns the plan column to store and the log entries to append.
func EditPlan(t task.Task, ok bool, edit func(p *task.Plan) ([]task.Entry, error)) (body string, log []task.Entry, err error) {
	if !ok {
		return "", nil, task.ErrNoPlan
	}
	if log, err = edit(&t.Plan); err != nil {
		return "", nil, err
	}
	if body, err = EncodePlan(t.Plan); err != nil {
		return "", nil, err
	}
	return body, log, nil
}
