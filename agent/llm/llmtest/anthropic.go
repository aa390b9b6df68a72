package llmtest

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
)

// anthropic renders replies as the Messages API does: named SSE events
// (message_start, content_block_start/delta/stop, message_delta,
// message_stop) with a ping after the start.
type anthropic struct{}

type anBlockStart struct {
	Type         string `json:"type"`
	Index        int    `json:"index"`
	ContentBlock any    `json:"content_block"`
}

type anBlockDelta struct {
	Type  string  `json:"type"`
	Index int     `json:"index"`
	Delta anDelta `json:"delta"`
}

type anDelta struct {
	Type        string  `json:"type"`
	Text        *string `json:"text,omitempty"`
	PartialJSON *string `json:"partial_json,omitempty"`
	Thinking    *string `json:"thinking,omitempty"`
	Signature   *string `json:"signature,omitempty"`
}

type anBlockStop struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
}

// key accepts both ways the SDKs authenticate: x-api-key, and the bearer
// header that anthropic-sdk-go v2 sends for WithAPIKey.
func (anthropic) key(h http.Header) string {
	if k := h.Get("X-Api-Key"); k != "" {
		return k
	}
	return strings.TrimPrefix(h.Get("Authorization"), "Bearer ")
}

func (anthropic) streamBody(s *sseWriter, req Request, reply Reply, seq int64) {
	u := reply.usageFor(req)
	s.event("message_start", map[string]any{
		"type": "message_start",
		"message": map[string]any{
			"id": fmt.Sprintf("msg_llmtest_%d", seq), "type": "message", "role": "assistant",
			"model": req.Model(), "content": []any{},
			"stop_reason": nil, "stop_sequence": nil,
			// input_tokens leaves out what was read from or written to
			// the cache, as the API counts.
			"usage": map[string]any{
				"input_tokens":                u.InputTokens - u.CachedTokens - u.CacheWriteTokens,
				"cache_read_input_tokens":     u.CachedTokens,
				"cache_creation_input_tokens": u.CacheWriteTokens,
				"output_tokens":               1,
			},
		},
	})
	s.event("ping", map[string]any{"type": "ping"})
	index := 0
	if len(reply.Thinking) > 0 {
		s.event("content_block_start", anBlockStart{Type: "content_block_start", Index: index,
			ContentBlock: map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
		for _, t := range reply.Thinking {
			s.event("content_block_delta", anBlockDelta{Type: "content_block_delta", Index: index,
				Delta: anDelta{Type: "thinking_delta", Thinking: &t}})
		}
		sig := Signature(req.Model(), strings.Join(reply.Thinking, ""))
		s.event("content_block_delta", anBlockDelta{Type: "content_block_delta", Index: index,
			Delta: anDelta{Type: "signature_delta", Signature: &sig}})
		s.event("content_block_stop", anBlockStop{Type: "content_block_stop", Index: index})
		index++
	}
	if len(reply.Chunks) > 0 {
		s.event("content_block_start", anBlockStart{Type: "content_block_start", Index: index,
			ContentBlock: map[string]any{"type": "text", "text": ""}})
		for i, c := range reply.Chunks {
			if i > 0 {
				s.pause(reply.ChunkEvery)
			}
			s.event("content_block_delta", anBlockDelta{Type: "content_block_delta", Index: index,
				Delta: anDelta{Type: "text_delta", Text: &c}})
		}
		s.event("content_block_stop", anBlockStop{Type: "content_block_stop", Index: index})
		index++
	}
	for i, call := range reply.ToolCalls {
		id := call.ID
		if id == "" {
			id = fmt.Sprintf("toolu_%d_%d", seq, i)
		}
		s.event("content_block_start", anBlockStart{Type: "content_block_start", Index: index,
			ContentBlock: map[string]any{"type": "tool_use", "id": id, "name": call.Name, "input": map[string]any{}}})
		for _, a := range call.Args {
			s.event("content_block_delta", anBlockDelta{Type: "content_block_delta", Index: index,
				Delta: anDelta{Type: "input_json_delta", PartialJSON: &a}})
		}
		s.event("content_block_stop", anBlockStop{Type: "content_block_stop", Index: index})
		index++
	}
}

func (anthropic) streamEnd(s *sseWriter, req Request, reply Reply, seq int64) {
	stop := "end_turn"
	switch {
	case reply.MaxTokens:
		stop = "max_tokens"
	case len(reply.ToolCalls) > 0:
		stop = "tool_use"
	}
	s.event("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": reply.usageFor(req).OutputTokens},
	})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}

// Signature is the signature the fake gives a thinking block model wrote:
// it checks, as Anthropic does, that a block sent back is unchanged and
// goes back to the model that wrote it.
func Signature(model, thinking string) string {
	sum := sha256.Sum256([]byte("llmtest\x00" + model + "\x00" + thinking))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// refuse checks a request as the API does before answering: its tool
// calls and results (anthropicTools), its cache marks, and its thinking
// blocks — each signed for this model and unchanged, and, with thinking
// on, the assistant message whose tool results end the request (the user
// messages after it joined into one, as the API joins them) beginning
// with its thinking.
func (anthropic) refuse(req Request) string {
	msgs, _ := req.JSON["messages"].([]any)
	if msg := anthropicTools(msgs); msg != "" {
		return msg
	}
	if msg := anthropicCacheMarks(req); msg != "" {
		return msg
	}
	for i, x := range msgs {
		m, _ := x.(map[string]any)
		content, _ := m["content"].([]any)
		for j, y := range content {
			b, _ := y.(map[string]any)
			if b["type"] != "thinking" {
				continue
			}
			text, _ := b["thinking"].(string)
			if sig, _ := b["signature"].(string); sig != Signature(req.Model(), text) {
				return fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
			}
		}
	}
	if _, on := req.JSON["thinking"].(map[string]any); !on {
		return ""
	}
	last := len(msgs) - 1
	for last >= 0 {
		if m, _ := msgs[last].(map[string]any); m["role"] != "user" {
			break
		}
		last--
	}
	// msgs[last] is the last assistant message, msgs[last+1] the user
	// turn after it.
	if last < 0 || last+1 >= len(msgs) {
		return ""
	}
	prev, _ := msgs[last].(map[string]any)
	next, _ := msgs[last+1].(map[string]any)
	if firstBlock(next)["type"] != "tool_result" {
		return ""
	}
	if t := firstBlock(prev)["type"]; t != "thinking" && t != "redacted_thinking" {
		return fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%v`. "+
			"When `thinking` is enabled, a final `assistant` message must start with a thinking block", last, t)
	}
	return ""
}

// firstBlock is the first content block of a message, nil if none.
func firstBlock(m map[string]any) map[string]any {
	content, _ := m["content"].([]any)
	if len(content) == 0 {
		return nil
	}
	b, _ := content[0].(map[string]any)
	return b
}

func (anthropic) streamError(s *sseWriter) {
	s.event("error", map[string]any{
		"type":  "error",
		"error": map[string]any{"type": "overloaded_error", "message": "Overloaded"},
	})
}

func (anthropic) writeError(w http.ResponseWriter, req Request, reply Reply) {
	typ, msg := "invalid_request_error", ""
	switch {
	case reply.overflow:
		msg = "prompt is too long: 210000 tokens > 200000 maximum"
	case reply.Status == http.StatusUnauthorized:
		typ, msg = "authentication_error", "invalid x-api-key"
	case reply.Status == http.StatusForbidden:
		typ, msg = "permission_error", "Your API key does not have permission to use the specified resource."
	case reply.Status == http.StatusNotFound:
		typ, msg = "not_found_error", "model: "+req.Model()
	case reply.Status == http.StatusRequestEntityTooLarge:
		typ, msg = "request_too_large", "Request exceeds the maximum allowed number of bytes."
	case reply.Status == http.StatusTooManyRequests:
		typ, msg = "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"
	case reply.Status == 529:
		typ, msg = "overloaded_error", "Overloaded"
	case reply.Status >= 500:
		typ, msg = "api_error", "Internal server error"
	default:
		msg = http.StatusText(reply.Status)
	}
	if reply.Message != "" {
		msg = reply.Message
	}
	writeJSON(w, reply.Status, reply.Header, map[string]any{
		"type":  "error",
		"error": map[string]any{"type": typ, "message": msg},
	})
}

func (anthropic) writeModels(w http.ResponseWriter) {
	writeJSON(w, http.StatusOK, nil, map[string]any{
		"data": []any{map[string]any{
			"type": "model", "id": "claude-sonnet-4-5", "display_name": "Claude Sonnet 4.5",
			"created_at": "2025-09-29T00:00:00Z",
		}},
		"has_more": false, "first_id": "claude-sonnet-4-5", "last_id": "claude-sonnet-4-5",
	})
}
