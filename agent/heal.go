package agent

import (
	"github.com/parleybot/parley/agent/llm"
)

// InterruptedResult is the result recorded for a tool call that never
// finished (a crash, a cancel).
const InterruptedResult = "interrupted: this tool call did not finish"

// Heal restores the transcript invariant that every tool call is followed by
// exactly one result, in the order the calls were declared: missing results
// become InterruptedResult errors, results that answer no call (or answer
// one twice) are dropped. Heal(Heal(x)) equals Heal(x).
func Heal(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == llm.RoleTool {
			continue // orphan: not directly after its call
		}
		out = append(out, m)
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		results := map[string]llm.Message{}
		for i+1 < len(msgs) && msgs[i+1].Role == llm.RoleTool {
			i++
			r := msgs[i]
			if _, dup := results[r.ToolCallID]; !dup {
				results[r.ToolCallID] = r
			}
		}
		for _, c := range m.ToolCalls {
			r, ok := results[c.ID]
			if !ok {
				r = llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Text: InterruptedResult, IsError: true}
			}
			out = append(out, r)
		}
	}
	return out
}
