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
	Target  string `json:"target" jsonschema:"profile (who the user is, preferences), facts (durable decisions, conventions) or team (a convention for everyone in this place)"`
	Content string `json:"content,omitempty" jsonschema:"the entry to store; required for add and replace; one short self-contained sentence"`
	OldText string `json:"old_text,omitempty" jsonschema:"part of the existing entry to replace or remove; required for replace and remove"`
}

const memoryDescription = `Edit what you remember about the user you are talking to. ` +
	`Your memory of them is shown in the system prompt. Use "profile" for who they are and how they like to work, ` +
	`"facts" for durable decisions and conventions of theirs, "team" for what everyone in this place should know ` +
	`(a team convention the user states: "we deploy on Tuesdays"; never in a direct chat). Save only what will matter in later conversations; ` +
	`keep entries short; replace or remove entries that are outdated. ` +
	`Entries are capped in size: when memory is full, consolidate first.`

// Memory returns the memory tool. It edits only the memory of the user the
// turn belongs to (Caller.UserKey); the model cannot name another user. In
// a turn that has read untrusted content (Caller.Tainted) an addition or a
// replacement is not saved: the person is asked to confirm it privately
// (Caller.Confirm), whatever the guard thought of it, since a page or a
// tool result may have written it.
//
// Every addition or replacement passes the guard first (guard.Vet): the
// phrase tables, with the entry read next to the existing ones, then judge
// (nil: none) — an unclear or failed verdict refuses the write.
func Memory(store agent.MemoryStore, limits agent.MemoryLimits, judge *guard.Judge) (agent.Tool, error) {
	return agent.Local(agent.Func("memory", memoryDescription, func(ctx context.Context, c agent.Caller, a MemoryArgs) (string, error) {
		if c.UserKey == "" {
			return "", fmt.Errorf("no user to remember things about")
		}
		if a.Target == string(agent.Team) {
			return teamEdit(ctx, c, judge, limits, agent.MemoryEdit{Action: a.Action, Target: agent.Team, Content: a.Content, OldText: a.OldText, Place: c.Team})
		}
		target, err := agent.ParseMemoryTarget(a.Target)
		if err != nil {
			return "", err
		}
		e := agent.MemoryEdit{Action: a.Action, Target: target, Content: a.Content, OldText: a.OldText}
		if a.Action == "add" || a.Action == "replace" {
			// Memory is injected into every future prompt: nothing that
			// reads as an instruction, a secret or hidden text gets in.
			m, err := store.Memory(ctx, c.UserKey)
			if err != nil {
				return "", fmt.Errorf("load memory: %w", err)
			}
			if c.Tainted {
				// The owner decides; the tables spare them the obvious.
				if err := guard.CheckWith(a.Content, m.Entries(target)); err != nil {
					return "", err
				}
				return propose(ctx, c, e)
			}
			if err := guard.Vet(ctx, judge, a.Content, m.Entries(target)); err != nil {
				return "", err
			}
		}
		size, limit, err := agent.ApplyMemoryEdit(ctx, store, c.UserKey, limits, e)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("done: %s %s (%d of %d characters used)", a.Action, target, size, limit), nil
	}))
}

// propose hands a tainted edit to the person for confirmation.
func propose(ctx context.Context, c agent.Caller, e agent.MemoryEdit) (string, error) {
	if c.Confirm == nil {
		return "", fmt.Errorf("not saved: this conversation has read content from outside (a web page, a tool, another person), " +
			"and here no one can be asked to confirm a memory entry")
	}
	if err := c.Confirm.ProposeMemory(ctx, c, e); err != nil {
		return "", fmt.Errorf("not saved: asking %s to confirm it failed: %w", c.UserName, err)
	}
	return fmt.Sprintf("not saved yet: this conversation has read content from outside, so %s was asked privately "+
		"to confirm the entry; it is saved only if they do. Do not ask again.", c.UserName), nil
}

// teamEdit vets an edit of the turn's place's team notes with both of the
// guard's layers, tainted turn or not — a team note reaches everyone's
// prompt here, so the judge reads it even when a person will too — then
// hands it to the chat core, which knows who may write and asks for the
// confirmations (Caller.TeamDesk.WriteTeam).
func teamEdit(ctx context.Context, c agent.Caller, judge *guard.Judge, limits agent.MemoryLimits, e agent.MemoryEdit) (string, error) {
	if c.TeamDesk == nil || c.Team == "" {
		return "", fmt.Errorf("no team notes here: they belong to a workspace, server or group, and a direct chat has none; " +
			"keep it in the user's own facts instead")
	}
	notes, err := c.TeamDesk.TeamNotes(ctx, c.Team)
	if err != nil {
		return "", fmt.Errorf("load team notes: %w", err)
	}
	// A write that cannot apply (too long, no such note) is refused now,
	// before an admin or the author is asked about it.
	if err := agent.CheckTeamEdit(notes, limits, e); err != nil {
		return "", err
	}
	if e.Action == "add" || e.Action == "replace" {
		if err := guard.Vet(ctx, judge, e.Content, agent.NoteContents(notes)); err != nil {
			return "", err
		}
	}
	return c.TeamDesk.WriteTeam(ctx, c, e)
}
