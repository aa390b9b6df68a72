package llmtest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// body decodes a request body as the server records it.
func body(t *testing.T, v any) Request {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return Request{Body: b, JSON: m}
}

var ephemeral = map[string]any{"type": "ephemeral"}

func text(s string, mark bool) map[string]any {
	b := map[string]any{"type": "text", "text": s}
	if mark {
		b["cache_control"] = ephemeral
	}
	return b
}

// messagesBody is a Messages request: a system prompt of system bytes
// marked as a breakpoint, then turns, the last block of the last one
// marked when tail is set.
func messagesBody(t *testing.T, model, system string, tail bool, turns ...string) Request {
	var msgs []any
	for i, s := range turns {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, map[string]any{"role": role, "content": []any{text(s, tail && i == len(turns)-1)}})
	}
	return body(t, map[string]any{
		"model": model, "max_tokens": 100, "stream": true,
		"system": []any{text(system, true)}, "messages": msgs,
	})
}

func TestAnthropicCacheAccounting(t *testing.T) {
	system := strings.Repeat("s", 4*2000) // 2,000 tokens
	long := strings.Repeat("u", 4*1500)   // 1,500 tokens
	short := strings.Repeat("x", 4*100)   // below the minimum on its own
	type call struct {
		req         func(t *testing.T) Request
		read, write int // tokens; -1: more than zero
	}
	tests := []struct {
		name  string
		calls []call
	}{
		{"the same prompt twice", []call{
			{func(t *testing.T) Request { return messagesBody(t, "m", system, false, "hi") }, 0, -1},
			{func(t *testing.T) Request { return messagesBody(t, "m", system, false, "hi") }, -1, 0},
		}},
		{"a longer conversation reads the earlier tail", []call{
			{func(t *testing.T) Request { return messagesBody(t, "m", system, true, long) }, 0, -1},
			{func(t *testing.T) Request { return messagesBody(t, "m", system, true, long, "answer", "next") }, -1, -1},
		}},
		{"one byte changed in the system prompt", []call{
			{func(t *testing.T) Request { return messagesBody(t, "m", system, false, "hi") }, 0, -1},
			{func(t *testing.T) Request { return messagesBody(t, "m", "S"+system[1:], false, "hi") }, 0, -1},
		}},
		{"another model", []call{
			{func(t *testing.T) Request { return messagesBody(t, "m", system, false, "hi") }, 0, -1},
			{func(t *testing.T) Request { return messagesBody(t, "other", system, false, "hi") }, 0, -1},
		}},
		{"below the minimum nothing is written", []call{
			{func(t *testing.T) Request { return messagesBody(t, "m", short, false, "hi") }, 0, 0},
			{func(t *testing.T) Request { return messagesBody(t, "m", short, false, "hi") }, 0, 0},
		}},
		{"no breakpoint, no cache", []call{
			{func(t *testing.T) Request {
				return body(t, map[string]any{"model": "m", "system": system, "messages": []any{}})
			}, 0, 0},
			{func(t *testing.T) Request {
				return body(t, map[string]any{"model": "m", "system": system, "messages": []any{}})
			}, 0, 0},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c promptCache
			var reads []int
			for i, call := range tc.calls {
				read, write := c.account(call.req(t), true)
				reads = append(reads, read)
				if !matches(read, call.read) || !matches(write, call.write) {
					t.Errorf("call %d: read %d, wrote %d; want %d, %d (-1: some)", i+1, read, write, call.read, call.write)
				}
			}
			if tc.name == "a longer conversation reads the earlier tail" && reads[1] < 3500 {
				t.Errorf("read %d tokens, want the system prompt and the first turn (3,500)", reads[1])
			}
		})
	}
}

func matches(got, want int) bool {
	if want < 0 {
		return got > 0
	}
	return got == want
}

func TestOpenAICacheAccounting(t *testing.T) {
	chat := func(t *testing.T, model string, turns ...string) Request {
		var msgs []any
		for _, s := range turns {
			msgs = append(msgs, map[string]any{"role": "user", "content": s})
		}
		return body(t, map[string]any{"model": model, "messages": msgs})
	}
	prefix := strings.Repeat("p", 4*2500) // 2,500 tokens
	var c promptCache
	if got, _ := c.account(chat(t, "m", prefix, "a"), false); got != 0 {
		t.Fatalf("first call read %d, want 0", got)
	}
	if got, _ := c.account(chat(t, "m", prefix, "b"), false); got != 2048 {
		t.Errorf("shared 2,500 tokens read as %d, want 2,048 (whole blocks of 1,024)", got)
	}
	if got, _ := c.account(chat(t, "n", prefix, "b"), false); got != 0 {
		t.Errorf("another model read %d, want 0", got)
	}
	if got, _ := c.account(chat(t, "m", "x"+prefix), false); got != 0 {
		t.Errorf("a different first byte read %d, want 0", got)
	}
}
