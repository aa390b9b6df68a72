package openai

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/parleybot/parley/agent/llm"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// newParams maps a neutral request to Chat Completions parameters.
//
// Prompt caching is automatic on OpenAI for a prompt's longest prefix seen
// before (from 1,024 tokens on); prompt_cache_key sends the calls of one
// conversation where that prefix is cached. Thinking blocks are never
// sent back: Chat Completions has no field for them (reasoning models keep
// theirs hidden, and servers that show theirs, such as DeepSeek, refuse
// them in a request).
func newParams(req llm.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{
		Model:    req.Model,
		Messages: make([]sdk.ChatCompletionMessageParamUnion, 0, len(req.Messages)+1),
		// Usage comes in a last chunk only when asked for.
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)},
	}
	if req.MaxTokens > 0 {
		// max_completion_tokens, not the deprecated max_tokens that
		// reasoning models reject; servers that only know max_tokens
		// ignore it, which costs a longer answer rather than a 400.
		p.MaxCompletionTokens = sdk.Int(int64(req.MaxTokens))
	}
	if req.CacheKey != "" {
		p.PromptCacheKey = sdk.String(cacheKey(req.CacheKey))
	}
	if r := req.Reasoning; r.Effort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(r.Effort)
		if req.MaxTokens > 0 {
			// Reasoning tokens count against max_completion_tokens.
			p.MaxCompletionTokens = sdk.Int(int64(req.MaxTokens + r.Budget))
		}
	}
	if req.System != "" {
		p.Messages = append(p.Messages, sdk.SystemMessage(req.System))
	}
	for _, m := range llm.ToolIDs(req.Messages) {
		switch m.Role {
		case llm.RoleUser:
			p.Messages = append(p.Messages, userMessage(m))
		case llm.RoleAssistant:
			p.Messages = append(p.Messages, assistantMessage(m))
		case llm.RoleTool:
			// Chat Completions has no error flag on tool results; the
			// agent's result text already says what failed.
			p.Messages = append(p.Messages, sdk.ToolMessage(m.Text, m.ToolCallID))
		default:
			return p, fmt.Errorf("message role %q is not one of user, assistant, tool", m.Role)
		}
	}
	if req.Tail != "" {
		p.Messages = withTail(p.Messages, req.Tail)
	}
	for _, t := range req.Tools {
		params, err := schemaParams(t.Schema)
		if err != nil {
			return p, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: params}
		if t.Description != "" {
			fn.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(fn))
	}
	if f := req.Format; f != nil {
		schema, err := schemaParams(f.Schema)
		if err != nil {
			return p, fmt.Errorf("format %q: %w", f.Name, err)
		}
		js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: f.Name, Schema: schema, Strict: sdk.Bool(true)}
		if f.Description != "" {
			js.Description = sdk.String(f.Description)
		}
		p.ResponseFormat = sdk.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}}
	}
	return p, nil
}

// maxCacheKey is the longest prompt_cache_key OpenAI accepts.
const maxCacheKey = 64

// cacheKey turns a conversation's key into a prompt_cache_key: hashed, so
// no session id leaves Parley, and within OpenAI's length limit (a SHA-256
// in hex is exactly 64 characters).
func cacheKey(key string) string {
	sum := sha256.Sum256([]byte("parley:" + key))
	return hex.EncodeToString(sum[:])[:maxCacheKey]
}

// withTail adds a request's Tail after the conversation: to the last
// message when it is the user's own text, else as a user message of its
// own. Either way the bytes before it are the same as the previous call's.
func withTail(msgs []sdk.ChatCompletionMessageParamUnion, tail string) []sdk.ChatCompletionMessageParamUnion {
	if n := len(msgs); n > 0 {
		if u := msgs[n-1].OfUser; u != nil && u.Content.OfString.Valid() {
			u.Content.OfString = sdk.String(u.Content.OfString.Value + "\n\n" + tail)
			return msgs
		}
	}
	return append(msgs, sdk.UserMessage(tail))
}

func assistantMessage(m llm.Message) sdk.ChatCompletionMessageParamUnion {
	var a sdk.ChatCompletionAssistantMessageParam
	if m.Text != "" || len(m.ToolCalls) == 0 {
		a.Content.OfString = sdk.String(m.Text)
	}
	for _, c := range m.ToolCalls {
		a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
				ID: c.ID,
				Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{
					Name: c.Name,
					// Sent back exactly as the model produced it, even
					// when invalid: it is the model's own history.
					Arguments: string(c.Arguments),
				},
			},
		})
	}
	return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}
}

// schemaParams splits a tool's JSON Schema into the SDK's map form. Each
// top-level value stays raw JSON, so the schema goes out as written: decoded
// into Go values, numbers would lose precision or (as json.Number) be
// encoded as strings by the SDK.
func schemaParams(schema json.RawMessage) (shared.FunctionParameters, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return shared.FunctionParameters{"type": "object", "properties": map[string]any{}}, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(schema, &raw); err != nil || raw == nil {
		return nil, fmt.Errorf("schema is not a JSON object: %w", cmp.Or(err, errors.New("null")))
	}
	params := make(shared.FunctionParameters, len(raw))
	for k, v := range raw {
		params[k] = v
	}
	return params, nil
}
