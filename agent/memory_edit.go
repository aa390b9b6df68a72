package agent

import (
	"context"
	"fmt"
)

// MemoryEdit is one change to a person's memory, as the memory tool asks
// for it.
type MemoryEdit struct {
	Action  string // add, replace or remove
	Target  MemoryTarget
	Content string // the entry, for add and replace
	OldText string // part of the entry to replace or remove
	// Place is the team notes' place (Target Team): the space scope's
	// key the turn ran in, never one the model named.
	Place string `json:",omitempty"`
}

// ApplyMemoryEdit makes e to userKey's memory in one transaction, within
// limits, and returns the target's size after it. The memory tool calls
// it, and so does the chat core when a person confirms an edit a turn
// proposed (MemoryConfirmer).
func ApplyMemoryEdit(ctx context.Context, store MemoryStore, userKey string, limits MemoryLimits, e MemoryEdit) (size, limit int, err error) {
	limit = limits.Cap(e.Target)
	edit, err := editFunc(e, limit)
	if err != nil {
		return 0, limit, err
	}
	err = store.EditMemory(ctx, userKey, e.Target, func(es []string) ([]string, error) {
		out, err := edit(es)
		size = Size(out)
		return out, err
	})
	return size, limit, err
}

// editFunc is what e does to a list, within limit.
func editFunc(e MemoryEdit, limit int) (func([]string) ([]string, error), error) {
	switch e.Action {
	case "add":
		return func(es []string) ([]string, error) { return AddEntry(es, e.Content, limit) }, nil
	case "replace":
		return func(es []string) ([]string, error) { return ReplaceEntry(es, e.OldText, e.Content, limit) }, nil
	case "remove":
		return func(es []string) ([]string, error) { return RemoveEntry(es, e.OldText) }, nil
	}
	return nil, fmt.Errorf("unknown action %q: want add, replace or remove", e.Action)
}

// MemoryConfirmer asks a person, privately, to confirm a memory edit that a
// turn which read untrusted content proposed for them (the chat core's
// Save / Discard buttons). The edit is applied only if they save it.
type MemoryConfirmer interface {
	ProposeMemory(ctx context.Context, c Caller, e MemoryEdit) error
}
