package task_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/task"
)

// benchPlan is a plan of n items as a model writes them: a short line an
// item, a third done, one in progress, every third with a short note.
func benchPlan(n int) task.Plan {
	var p task.Plan
	for i := range n {
		it := task.Item{Text: fmt.Sprintf("Update the deployment config for service %d and verify it", i+1), Status: task.Pending}
		switch {
		case i < n/3:
			it.Status = task.Done
		case i == n/3:
			it.Status = task.InProgress
		}
		if i%3 == 0 {
			it.Note = "the staging values differ"
		}
		p.Items = append(p.Items, it)
	}
	return p
}

// BenchmarkPlanOverhead measures what a plan costs each step: the tokens
// (agent.EstimateTokens) of the section the plan adds to every step, after
// the conversation, and those a todo call leaves in the history (its
// arguments and its result), with the time to render the section.
// docs/tasks.md quotes the figures.
func BenchmarkPlanOverhead(b *testing.B) {
	for _, n := range []int{5, 20} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			p := benchPlan(n)
			section := agent.PlanSection(p.View())
			args, err := json.Marshal(task.TodoArgs{Items: p.Items})
			if err != nil {
				b.Fatal(err)
			}
			result := "Plan saved:\n" + p.Render()
			for b.Loop() {
				section = agent.PlanSection(p.View())
			}
			if !strings.Contains(section, "Your plan") {
				b.Fatalf("no plan section: %q", section)
			}
			b.ReportMetric(float64(agent.EstimateTokens(section)), "prompt-tokens/step")
			b.ReportMetric(float64(agent.EstimateTokens(string(args))+agent.EstimateTokens(result)), "history-tokens/todo")
		})
	}
}
