package llmtest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// What the real APIs check of a conversation before answering, and a
// transcript moved from one provider to the other can break: tool-call
// ids and their pairing with results, images where a role takes none,
// cache marks. Messages are the providers' own, word for word where
// known, so a test reads what an operator's log would.

// anthropicToolID is the pattern the Messages API holds tool_use ids to.
var anthropicToolID = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// maxCacheMarks is how many blocks an Anthropic request may mark with
// cache_control.
const maxCacheMarks = 4

// maxOpenAIToolID is the longest tool-call id Chat Completions takes.
const maxOpenAIToolID = 40

// anthropicTools checks tool_use and tool_result blocks: each id of the
// pattern and unique in the request, each tool_use answered in the next
// message, each tool_result answering a tool_use of the previous one and
// coming before the message's other blocks.
func anthropicTools(msgs []any) string {
	seen := map[string]bool{}
	var open []string // the previous message's tool_use ids
	for i, x := range msgs {
		m, _ := x.(map[string]any)
		content, _ := m["content"].([]any)
		var uses []string
		answered := map[string]bool{}
		other := false // a block other than tool_result came before
		for j, y := range content {
			b, _ := y.(map[string]any)
			switch b["type"] {
			case "tool_use":
				id, _ := b["id"].(string)
				if !anthropicToolID.MatchString(id) {
					return fmt.Sprintf("messages.%d.content.%d.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'", i, j)
				}
				if seen[id] {
					return fmt.Sprintf("messages.%d.content.%d: `tool_use` ids must be unique", i, j)
				}
				seen[id] = true
				uses = append(uses, id)
			case "tool_result":
				id, _ := b["tool_use_id"].(string)
				if !slices.Contains(open, id) {
					return fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. "+
						"Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, id)
				}
				if other {
					return fmt.Sprintf("messages.%d.content.%d: `tool_result` blocks must come first in the message's content", i, j)
				}
				answered[id] = true
			default:
				other = true
			}
		}
		var missing []string
		for _, id := range open {
			if !answered[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. "+
				"Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i-1, strings.Join(missing, ", "))
		}
		open = uses
	}
	return ""
}

// anthropicCacheMarks checks the number of cache_control marks.
func anthropicCacheMarks(req Request) string {
	if n := len(req.CacheBreakpoints()); n > maxCacheMarks {
		return fmt.Sprintf("A maximum of %d blocks with cache_control may be provided. Found %d.", maxCacheMarks, n)
	}
	return ""
}

// openAIMessages checks a Chat Completions conversation: tool-call ids
// within the length limit, each tool message answering a call of the
// assistant message its run follows, each call answered, images in user
// messages only.
func openAIMessages(msgs []any) string {
	var open []string // calls of the last assistant message not yet answered
	for i, x := range msgs {
		m, _ := x.(map[string]any)
		role, _ := m["role"].(string)
		if role != "tool" && len(open) > 0 {
			return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
				"The following tool_call_ids did not have response messages: " + strings.Join(open, ", ")
		}
		if parts, _ := m["content"].([]any); role != "user" {
			for _, p := range parts {
				if q, _ := p.(map[string]any); q["type"] == "image_url" {
					return fmt.Sprintf("Invalid 'messages[%d]'. Image URLs are only allowed for messages with role 'user', "+
						"but this message with role '%s' contains an image URL.", i, role)
				}
			}
		}
		switch role {
		case "assistant":
			calls, _ := m["tool_calls"].([]any)
			for j, c := range calls {
				tc, _ := c.(map[string]any)
				id, _ := tc["id"].(string)
				if len(id) > maxOpenAIToolID {
					return fmt.Sprintf("Invalid 'messages[%d].tool_calls[%d].id': string too long. "+
						"Expected a string with maximum length %d, but got a string with length %d instead.", i, j, maxOpenAIToolID, len(id))
				}
				open = append(open, id)
			}
		case "tool":
			id, _ := m["tool_call_id"].(string)
			k := slices.Index(open, id)
			if k < 0 {
				return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
			}
			open = slices.Delete(open, k, k+1)
		}
	}
	if len(open) > 0 {
		return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
			"The following tool_call_ids did not have response messages: " + strings.Join(open, ", ")
	}
	return ""
}
