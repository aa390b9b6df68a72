package llmtest

import (
	"bytes"
	"encoding/json"
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
