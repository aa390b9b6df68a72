package task

import (
	"context"
	"fmt"
	"slices"

	"github.com/parleybot/parley/agent"
)

// helperTools are a helper's tools: runner's, but todo, delegate and wait,
// and todo_item for its own item. A helper that may nest (depth below
// tasks.helper_depth) also keeps a plan of its own and delegates from it.
func (dl *delegator) helperTools(runner *agent.Runner, depth int, h Helper) ([]agent.Tool, error) {
	var out []agent.Tool
	for _, t := range runner.Tools {
		// wait too: no one writes to a helper, so nothing could wake it.
		if name := t.Name(); name != todoName && name != delegateName && name != waitName {
			out = append(out, t)
		}
	}
	item, err := dl.todoItem(h)
	if err != nil {
		return nil, err
	}
	out = append(out, item)
	if depth < dl.lim.Depth {
		todo, err := dl.Tasks.Todo()
		if err != nil {
			return nil, err
		}
		del, err := dl.tool(depth)
		if err != nil {
			return nil, err
		}
		out = append(out, todo, del)
	}
	return out, nil
}

// ItemArgs is the todo_item tool's argument contract.
type ItemArgs struct {
	Item   int    `json:"item,omitempty" jsonschema:"your item's number; you may update only your own"`
	Status Status `json:"status" jsonschema:"where your item stands: in_progress, done, failed, blocked or pending"`
	Note   string `json:"note,omitempty" jsonschema:"a short note: what you found, or why it failed; omitted keeps the current one"`
}

// todoItem is the helper's one way to touch its parent's plan: the status
// and note of its own item, in one transaction with the work log line.
func (dl *delegator) todoItem(h Helper) (agent.Tool, error) {
	return agent.Local(agent.Func("todo_item",
		fmt.Sprintf("Update your item (%d) of the task's plan: its status (in_progress, done, failed, blocked, pending) and a short note. "+
			"People see the plan in the thread. Mark it done only when the tools' results show it is.", h.Item),
		func(ctx context.Context, c agent.Caller, a ItemArgs) (string, error) {
			if a.Item != 0 && a.Item != h.Item {
				return "", fmt.Errorf("you may update only your own item, %d, not item %d", h.Item, a.Item)
			}
			var now Item
			err := dl.Helpers.EditPlan(ctx, h.Parent, func(p *Plan) ([]Entry, error) {
				i := slices.IndexFunc(p.Items, func(it Item) bool { return it.Text == h.ItemText })
				if h.Item <= len(p.Items) && p.Items[h.Item-1].Text == h.ItemText {
					i = h.Item - 1 // the same text may be there twice: the index decides
				}
				if i < 0 {
					return nil, fmt.Errorf("your item (%q) is no longer in the plan", h.ItemText)
				}
				old := Plan{Items: slices.Clone(p.Items)}
				p.Items[i].Status = a.Status
				if a.Note != "" {
					p.Items[i].Note = a.Note
				}
				if err := p.Validate(); err != nil {
					return nil, err
				}
				now = p.Items[i]
				var log []Entry
				for _, line := range p.Changes(old) {
					log = append(log, Entry{At: dl.Tasks.now(), Kind: "plan", Text: line + " (helper)"})
				}
				return log, nil
			})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Item %d is %s: %s", h.Item, now.Status, now.Text), nil
		}))
}

// helperHeading introduces the parent's plan in a helper's prompt.
const helperHeading = "## The task's plan (read-only: you are a helper on item %d; report on it with todo_item)"

// helperPlans show a helper its parent's plan, read-only; one that keeps a
// plan of its own (nesting) sees its own as a task does, the parent's
// after it.
type helperPlans struct {
	store  Store
	parent string
	item   int
}

func (p helperPlans) Plan(ctx context.Context, sessionID string) (agent.PlanView, error) {
	parent, _, err := p.store.Task(ctx, p.parent)
	if err != nil {
		return agent.PlanView{}, err
	}
	heading := fmt.Sprintf(helperHeading, p.item)
	own, ok, err := p.store.Task(ctx, sessionID)
	if err != nil {
		return agent.PlanView{}, err
	}
	if ok && len(own.Plan.Items) > 0 {
		v := own.Plan.View()
		v.Text += "\n\n" + heading + "\n" + parent.Plan.Render()
		return v, nil
	}
	// No counts: the parent's items are not the helper's task, so its
	// turn neither checks them nor pauses on a task's budget.
	return agent.PlanView{Text: parent.Plan.Render(), Heading: heading}, nil
}
