package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// Tool-call ids are written by whichever model made the call and sent
// back with every later request, to whichever model answers then. The
// providers disagree on what they take:
//
//   - Anthropic: ^[a-zA-Z0-9_-]+$, and unique within the request
//     ("`tool_use` ids must be unique");
//   - OpenAI: at most 40 characters;
//   - compatible servers write what they like: "" (no id), "call_0" on
//     every answer, "functions.search:0" (Kimi), "chatcmpl-tool-" and 32
//     hex digits (vLLM, 46 characters).
//
// So both adapters send each id through ToolIDs, which keeps those every
// provider takes and maps the others to one that every provider takes.

// maxToolID is the longest tool-call id OpenAI takes.
const maxToolID = 40

// ToolIDs returns msgs with each tool-call id that a provider could
// refuse — empty, longer than 40 characters, with characters other than
// a-z A-Z 0-9 _ -, or already used by an earlier call of the request —
// replaced by "call_" and 24 hex digits of its hash, in the call and in
// the results that answer it (those after its assistant message). The
// replacement depends on the id and on how often it was used before, so
// every request of a conversation sends the same bytes and the prompt
// cache keeps hitting. msgs is not modified; ids that pass are sent as
// written.
func ToolIDs(msgs []Message) []Message {
	var out []Message
	seen := map[string]int{}        // ids of calls so far, sent or original, by uses
	var answers map[string][]string // the last assistant message's: original → sent, in order
	for i, m := range msgs {
		switch {
		case m.Role == RoleAssistant && len(m.ToolCalls) > 0:
			answers = map[string][]string{}
			var calls []ToolCall
			for j, c := range m.ToolCalls {
				id := c.ID
				if !toolIDOK(id) || seen[id] > 0 {
					id = toolIDFor(c.ID, seen[c.ID])
				}
				seen[c.ID]++
				if id != c.ID {
					seen[id]++
					if calls == nil {
						calls = append([]ToolCall(nil), m.ToolCalls...)
					}
					calls[j].ID = id
				}
				answers[c.ID] = append(answers[c.ID], id)
			}
			if calls != nil {
				out = cloneOnce(out, msgs)
				out[i].ToolCalls = calls
			}
		case m.Role == RoleTool:
			id := m.ToolCallID
			if sent := answers[id]; len(sent) > 0 {
				// The k-th result with an id answers the k-th call with it.
				id = sent[0]
				if len(sent) > 1 {
					answers[m.ToolCallID] = sent[1:]
				}
			} else if !toolIDOK(id) {
				id = toolIDFor(id, 0) // answers no call: Heal drops it, but not here
			}
			if id != m.ToolCallID {
				out = cloneOnce(out, msgs)
				out[i].ToolCallID = id
			}
		case m.Role != RoleTool:
			answers = nil
		}
	}
	if out == nil {
		return msgs
	}
	return out
}

// cloneOnce returns out, or a copy of msgs when out is still nil.
func cloneOnce(out, msgs []Message) []Message {
	if out == nil {
		out = append([]Message(nil), msgs...)
	}
	return out
}

// toolIDOK reports whether every provider takes id as it is.
func toolIDOK(id string) bool {
	if id == "" || len(id) > maxToolID {
		return false
	}
	for _, c := range []byte(id) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// toolIDFor is the id sent for the n-th earlier use of id, counted from
// 0, when id itself cannot be.
func toolIDFor(id string, n int) string {
	sum := sha256.Sum256([]byte(id + "\x00" + strconv.Itoa(n)))
	return "call_" + hex.EncodeToString(sum[:12])
}
