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
