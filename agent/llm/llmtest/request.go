package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// Request is one request the server received, recorded before it was
// answered (including refused ones).
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	// JSON is Body decoded, nil when Body is not a JSON object. Numbers
	// are json.Number, so they compare exactly.
	JSON map[string]any
}

func newRequest(r *http.Request, body []byte) Request {
	req := Request{
		Method: r.Method,
		Path:   r.URL.Path,
		Header: r.Header.Clone(),
		Body:   body,
	}
	if len(body) > 0 {
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if dec.Decode(&m) == nil {
			req.JSON = m
		}
	}
	return req
}

// Model returns the request's "model" field.
func (r Request) Model() string {
	s, _ := r.JSON["model"].(string)
	return s
}

// Stream reports whether the request asked for a streamed answer.
func (r Request) Stream() bool {
	b, _ := r.JSON["stream"].(bool)
	return b
}

// LastUserText returns the text of the last user message, in either
// protocol: a string content, or the text parts/blocks of a content array
// (tool results are not user text). It is what an echoing Responder needs.
func (r Request) LastUserText() string { return r.LastText("user") }

// LastText returns the text of the last message with role ("user",
// "assistant", "tool"; OpenAI's "system" too) that has any: a string
// content, or the text parts/blocks of a content array.
func (r Request) LastText(role string) string {
	msgs, _ := r.JSON["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] != role {
			continue
		}
		switch c := m["content"].(type) {
		case string:
			return c
		case []any:
			var text string
			for _, part := range c {
				p, _ := part.(map[string]any)
				if p["type"] == "text" {
					s, _ := p["text"].(string)
					text += s
				}
			}
			if text != "" {
				return text
			}
		}
	}
	return ""
}

// Echo is a Responder that answers with the last user message, prefixed by
// "echo: ": a deterministic model for end-to-end tests.
func Echo(r Request) Reply {
	return Text("echo: ", r.LastUserText())
}

// CacheBreakpoints lists where an Anthropic request marks its prompt with
// cache_control, as paths: "tools[1]", "system[0]", "messages[3].content[0]".
func (r Request) CacheBreakpoints() []string {
	var out []string
	marked := func(v any) bool {
		m, _ := v.(map[string]any)
		_, ok := m["cache_control"]
		return ok
	}
	for _, section := range []string{"tools", "system"} {
		list, _ := r.JSON[section].([]any)
		for i, b := range list {
			if marked(b) {
				out = append(out, fmt.Sprintf("%s[%d]", section, i))
			}
		}
	}
	msgs, _ := r.JSON["messages"].([]any)
	for i, x := range msgs {
		m, _ := x.(map[string]any)
		content, _ := m["content"].([]any)
		for j, b := range content {
			if marked(b) {
				out = append(out, fmt.Sprintf("messages[%d].content[%d]", i, j))
			}
		}
	}
	return out
}

// PromptCacheKey returns an OpenAI request's prompt_cache_key.
func (r Request) PromptCacheKey() string {
	s, _ := r.JSON["prompt_cache_key"].(string)
	return s
}

// ThinkingBudget returns an Anthropic request's thinking.budget_tokens, 0
// when it asks for no thinking.
func (r Request) ThinkingBudget() int {
	t, _ := r.JSON["thinking"].(map[string]any)
	n, _ := t["budget_tokens"].(json.Number)
	b, _ := n.Int64()
	return int(b)
}

// ReasoningEffort returns an OpenAI request's reasoning_effort.
func (r Request) ReasoningEffort() string {
	s, _ := r.JSON["reasoning_effort"].(string)
	return s
}

// ThinkingBlock is a thinking block an Anthropic request sends back.
type ThinkingBlock struct {
	Message   int    // index in messages
	Thinking  string // "" for a redacted block
	Signature string
	Redacted  bool
}

// ThinkingBlocks lists the thinking blocks of an Anthropic request's
// assistant messages, in order.
func (r Request) ThinkingBlocks() []ThinkingBlock {
	var out []ThinkingBlock
	msgs, _ := r.JSON["messages"].([]any)
	for i, x := range msgs {
		m, _ := x.(map[string]any)
		content, _ := m["content"].([]any)
		for _, y := range content {
			b, _ := y.(map[string]any)
			switch b["type"] {
			case "thinking":
				text, _ := b["thinking"].(string)
				sig, _ := b["signature"].(string)
				out = append(out, ThinkingBlock{Message: i, Thinking: text, Signature: sig})
			case "redacted_thinking":
				out = append(out, ThinkingBlock{Message: i, Redacted: true})
			}
		}
	}
	return out
}

// FormatName returns the name of the structured answer a request asks
// for (llm.Format): an OpenAI request's response_format json_schema name,
// or the tool an Anthropic request's tool_choice forces; "" for none.
func (r Request) FormatName() string {
	if f, _ := r.JSON["response_format"].(map[string]any); f["type"] == "json_schema" {
		js, _ := f["json_schema"].(map[string]any)
		s, _ := js["name"].(string)
		return s
	}
	if c, _ := r.JSON["tool_choice"].(map[string]any); c["type"] == "tool" {
		s, _ := c["name"].(string)
		return s
	}
	return ""
}
