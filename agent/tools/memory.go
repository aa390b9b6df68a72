// Package tools holds Parley's built-in tools.
package tools

import (
	"context"
	"fmt"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/guard"
)

// MemoryArgs is the memory tool's argument contract.
type MemoryArgs struct {
	Action  string `json:"action" jsonschema:"add, replace or remove"`
	Target  string `json:"target" jsonschema:"profile (who the user is, preferences) or facts (durable decisions, conventions)"`
	Content string `json:"content,omitempty" jsonschema:"the entry to store; required for add and replace; one short self-contained sentence"`
	OldText string `json:"old_text,omitempty" jsonschema:"part of the existing entry to replace or remove; required for replace and remove"`
}

const memoryDescription = `Edit what you remember about the user you are talking to. ` +
	`Your memory of them is shown in the system prompt. Use "profile" for who they are and how they like to work, ` +
	`"facts" for durable decisions and conventions. Save only what will matter in later conversations; ` +
	`keep entries short; replace or remove entries that are outdated. ` +
	`Entries are capped in size: when memory is full, consolidate first.`

// Memory returns the memory tool. It edits only the memory of the user the
// turn belongs to (Caller.UserKey); the model cannot name another user.
func Memory(store agent.MemoryStore, limits agent.MemoryLimits) (agent.Tool, error) {
	return agent.Func("memory", memoryDescription, func(ctx context.Context, c agent.Caller, a MemoryArgs) (string, error) {
		if c.UserKey == "" {
			return "", fmt.Errorf("no user to remember things about")
		}
		target, err := agent.ParseMemoryTarget(a.Target)
		if err != nil {
			return "", err
		}
		if a.Action == "add" || a.Action == "replace" {
			// Memory is injected into every future prompt: nothing that
			// reads as an instruction, a secret or hidden text gets in.
			if err := guard.Check(a.Content); err != nil {
				return "", err
			}
		}
		var edit func([]string) ([]string, error)
		limit := limits.Cap(target)
		switch a.Action {
		case "add":
			edit = func(e []string) ([]string, error) { return agent.AddEntry(e, a.Content, limit) }
		case "replace":
			edit = func(e []string) ([]string, error) { return agent.ReplaceEntry(e, a.OldText, a.Content, limit) }
		case "remove":
			edit = func(e []string) ([]string, error) { return agent.RemoveEntry(e, a.OldText) }
		default:
			return "", fmt.Errorf("unknown action %q: want add, replace or remove", a.Action)
		}
		var size int
		err = store.EditMemory(ctx, c.UserKey, target, func(e []string) ([]string, error) {
			out, err := edit(e)
			size = agent.Size(out)
			return out, err
		})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("done: %s %s (%d of %d characters used)", a.Action, target, size, limit), nil
	})
}
