package openai

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/parleybot/parley/agent/llm"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// newParams maps a neutral request to Chat Completions parameters.
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
	if req.System != "" {
		p.Messages = append(p.Messages, sdk.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
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
	return p, nil
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
