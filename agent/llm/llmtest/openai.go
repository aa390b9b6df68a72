package llmtest

import (
	"fmt"
	"net/http"
	"strings"
)

// openAI renders replies as the Chat Completions API does: data-only SSE
// events carrying chat.completion.chunk objects, ended by "data: [DONE]".
type openAI struct{}

// created is the fixed timestamp of every chunk, so recorded streams are
// reproducible.
const created = 1_700_000_000

type oaChunk struct {
	ID      string     `json:"id"`
	Object  string     `json:"object"`
	Created int64      `json:"created"`
	Model   string     `json:"model"`
	Choices []oaChoice `json:"choices"`
	Usage   *oaUsage   `json:"usage,omitempty"`
}

type oaChoice struct {
	Index        int     `json:"index"`
	Delta        oaDelta `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type oaDelta struct {
	Role             string       `json:"role,omitempty"`
	Content          *string      `json:"content,omitempty"`
	ReasoningContent *string      `json:"reasoning_content,omitempty"`
	ToolCalls        []oaToolCall `json:"tool_calls,omitempty"`
}

type oaToolCall struct {
	Index    int        `json:"index"`
	ID       string     `json:"id,omitempty"`
	Type     string     `json:"type,omitempty"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type oaUsage struct {
	PromptTokens        int            `json:"prompt_tokens"`
	CompletionTokens    int            `json:"completion_tokens"`
	TotalTokens         int            `json:"total_tokens"`
	PromptTokensDetails oaPromptDetail `json:"prompt_tokens_details"`
}

type oaPromptDetail struct {
	CachedTokens int `json:"cached_tokens"`
}

func (openAI) key(h http.Header) string {
	return strings.TrimPrefix(h.Get("Authorization"), "Bearer ")
}

func (openAI) chunk(req Request, id string, d oaDelta, finish *string) oaChunk {
	return oaChunk{
		ID:      id,
		Object:  "chat.completion.chunk",
		Created: created,
		Model:   req.Model(),
		Choices: []oaChoice{{Delta: d, FinishReason: finish}},
	}
}

func (o openAI) streamBody(s *sseWriter, req Request, reply Reply, seq int64) {
	id := fmt.Sprintf("chatcmpl-llmtest-%d", seq)
	empty := ""
	s.event("", o.chunk(req, id, oaDelta{Role: "assistant", Content: &empty}, nil))
	for _, t := range reply.Thinking {
		s.event("", o.chunk(req, id, oaDelta{ReasoningContent: &t}, nil))
	}
	for i, c := range reply.Chunks {
		if i > 0 {
			s.pause(reply.ChunkEvery)
		}
		s.event("", o.chunk(req, id, oaDelta{Content: &c}, nil))
	}
	for i, call := range reply.ToolCalls {
		callID := call.ID
		if callID == "" {
			callID = fmt.Sprintf("call_%d_%d", seq, i)
		}
		// The first fragment names the call; the following ones carry only
		// the index and a piece of the arguments, as OpenAI streams them.
		s.event("", o.chunk(req, id, oaDelta{ToolCalls: []oaToolCall{{
			Index: i, ID: callID, Type: "function", Function: oaFunction{Name: call.Name},
		}}}, nil))
		for _, a := range call.Args {
			s.event("", o.chunk(req, id, oaDelta{ToolCalls: []oaToolCall{{
				Index: i, Function: oaFunction{Arguments: a},
			}}}, nil))
		}
	}
}

func (o openAI) streamEnd(s *sseWriter, req Request, reply Reply, seq int64) {
	id := fmt.Sprintf("chatcmpl-llmtest-%d", seq)
	finish := "stop"
	switch {
	case reply.MaxTokens:
		finish = "length"
	case len(reply.ToolCalls) > 0:
		finish = "tool_calls"
	}
	s.event("", o.chunk(req, id, oaDelta{}, &finish))
	if opts, _ := req.JSON["stream_options"].(map[string]any); opts["include_usage"] == true {
		u := reply.usageFor(req)
		c := o.chunk(req, id, oaDelta{}, nil)
		c.Choices = []oaChoice{}
		c.Usage = &oaUsage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens,
			PromptTokensDetails: oaPromptDetail{CachedTokens: u.CachedTokens}}
		s.event("", c)
	}
	s.write("", []byte("[DONE]"))
}

// refuse checks a request's conversation as Chat Completions does
// (openAIMessages).
func (openAI) refuse(req Request) string {
	msgs, _ := req.JSON["messages"].([]any)
	return openAIMessages(msgs)
}

func (openAI) streamError(s *sseWriter) {
	s.event("", map[string]any{"error": map[string]any{
		"message": "The server had an error while processing your request. Sorry about that!",
		"type":    "server_error", "param": nil, "code": nil,
	}})
}

func (openAI) writeError(w http.ResponseWriter, req Request, reply Reply) {
	typ, code, msg := "invalid_request_error", "", ""
	switch {
	case reply.overflow:
		code = "context_length_exceeded"
		msg = "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages."
	case reply.Status == http.StatusUnauthorized:
		code, msg = "invalid_api_key", "Incorrect API key provided"
	case reply.Status == http.StatusForbidden:
		code, msg = "unsupported_country_region_territory", "Country, region, or territory not supported"
	case reply.Status == http.StatusNotFound:
		code, msg = "model_not_found", fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model())
	case reply.Status == http.StatusTooManyRequests:
		typ, code, msg = "requests", "rate_limit_exceeded", "Rate limit reached for requests"
	case reply.Status >= 500:
		typ, msg = "server_error", "The server had an error while processing your request. Sorry about that!"
	default:
		msg = http.StatusText(reply.Status)
	}
	if reply.Message != "" {
		msg = reply.Message
	}
	var codeJSON any // null when the error has no code, as OpenAI sends it
	if code != "" {
		codeJSON = code
	}
	writeJSON(w, reply.Status, reply.Header, map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": codeJSON},
	})
}

func (openAI) writeModels(w http.ResponseWriter) {
	writeJSON(w, http.StatusOK, nil, map[string]any{
		"object": "list",
		"data": []any{
			map[string]any{"id": "gpt-4o-mini", "object": "model", "created": created, "owned_by": "system"},
		},
	})
}
