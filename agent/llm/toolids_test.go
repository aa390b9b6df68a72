package llm_test

import (
	"regexp"
	"slices"
	"testing"

	"github.com/parleybot/parley/agent/llm"
)

// call is an assistant message making calls with ids; result a tool
// message answering id.
func call(ids ...string) llm.Message {
	m := llm.Message{Role: llm.RoleAssistant}
	for _, id := range ids {
		m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: id, Name: "search", Arguments: []byte(`{}`)})
	}
	return m
}

func result(id string) llm.Message {
	return llm.Message{Role: llm.RoleTool, ToolCallID: id, Text: "ok"}
}

// ids lists the calls' and results' ids of msgs, in order.
func ids(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			out = append(out, c.ID)
		}
		if m.Role == llm.RoleTool {
			out = append(out, m.ToolCallID)
		}
	}
	return out
}

var everyProvider = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,40}$`)

// TestToolIDs: ids every provider takes are sent as written; the others
// are mapped, in the call and its result alike, to one every provider
// takes, unique in the request and the same in every request.
func TestToolIDs(t *testing.T) {
	user := llm.Message{Role: llm.RoleUser, Text: "again"}
	tests := []struct {
		name string
		in   []llm.Message
		kept []bool // per id of ids(in): sent as written
	}{
		{"OpenAI's and Anthropic's", []llm.Message{call("call_abc123", "toolu_01A09q90qw90lq917835lq9"),
			result("call_abc123"), result("toolu_01A09q90qw90lq917835lq9")}, []bool{true, true, true, true}},
		{"Kimi's dotted ids", []llm.Message{call("functions.search:0"), result("functions.search:0")}, []bool{false, false}},
		{"vLLM's 46 characters", []llm.Message{call("chatcmpl-tool-0123456789abcdef0123456789abcdef"),
			result("chatcmpl-tool-0123456789abcdef0123456789abcdef")}, []bool{false, false}},
		{"no ids, two calls", []llm.Message{call("", ""), result(""), result("")}, []bool{false, false, false, false}},
		{"call_0 on every answer", []llm.Message{call("call_0"), result("call_0"), user, call("call_0"), result("call_0")},
			[]bool{true, true, false, false}},
		{"a result answering no call", []llm.Message{user, result("x.y")}, []bool{false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := ids(tt.in)
			out := llm.ToolIDs(tt.in)
			if !slices.Equal(ids(tt.in), before) {
				t.Fatal("the transcript was modified")
			}
			got := ids(out)
			for i, id := range got {
				if kept := id == before[i]; kept != tt.kept[i] {
					t.Errorf("id %d: %q sent as %q; kept %v, want %v", i, before[i], id, kept, tt.kept[i])
				}
				if !everyProvider.MatchString(id) {
					t.Errorf("id %d: %q is not one every provider takes", i, id)
				}
			}
			if again := ids(llm.ToolIDs(tt.in)); !slices.Equal(again, got) {
				t.Errorf("a second request sends %q, the first %q: the cache would miss", again, got)
			}
		})
	}
}

// TestToolIDsPairs: each result is sent with the id its call is sent
// with, and no two calls of a request share one.
func TestToolIDsPairs(t *testing.T) {
	in := []llm.Message{
		call("", "call_0"), result(""), result("call_0"),
		{Role: llm.RoleUser, Text: "more"},
		call("call_0", ""), result("call_0"), result(""),
	}
	out := llm.ToolIDs(in)
	calls := map[string]bool{}
	var open []string
	for _, m := range out {
		for _, c := range m.ToolCalls {
			if calls[c.ID] {
				t.Errorf("call id %q sent twice", c.ID)
			}
			calls[c.ID] = true
			open = append(open, c.ID)
		}
		if m.Role == llm.RoleTool {
			if len(open) == 0 || open[0] != m.ToolCallID {
				t.Errorf("result %q, want it to answer %q", m.ToolCallID, open)
			} else {
				open = open[1:]
			}
		}
	}
}
