package anthropic

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/parleybot/parley/agent/llm"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
)

// newParams maps a neutral request to Messages API parameters.
func newParams(req llm.Request) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{
		Model:     req.Model,
		MaxTokens: int64(DefaultMaxTokens),
	}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	msgs, err := messages(req.Messages)
	if err != nil {
		return p, err
	}
	p.Messages = msgs
	for _, t := range req.Tools {
		schema, err := inputSchema(t.Schema)
		if err != nil {
			return p, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		tool := &sdk.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tool.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: tool})
	}
	return p, nil
}

// messages maps the transcript. Tool results become tool_result blocks of
// a user message, and the results answering one assistant turn share one
// user message: the API wants them together, right after the tool_use turn.
func messages(in []llm.Message) ([]sdk.MessageParam, error) {
	out := make([]sdk.MessageParam, 0, len(in))
	inResults := false // out's last message holds tool results
	for _, m := range in {
		switch m.Role {
		case llm.RoleUser:
			out = append(out, sdk.NewUserMessage(userBlocks(m)...))
		case llm.RoleAssistant:
			blocks := make([]sdk.ContentBlockParamUnion, 0, 1+len(m.ToolCalls))
			if m.Text != "" {
				blocks = append(blocks, sdk.NewTextBlock(m.Text))
			}
			for _, c := range m.ToolCalls {
				blocks = append(blocks, sdk.NewToolUseBlock(c.ID, toolInput(c.Arguments), c.Name))
			}
			if len(blocks) == 0 {
				// The API rejects empty content, and an empty turn said nothing.
				continue
			}
			out = append(out, sdk.NewAssistantMessage(blocks...))
		case llm.RoleTool:
			block := toolResult(m)
			if inResults {
				last := out[len(out)-1].OfUser
				last.Content = append(last.Content, block)
			} else {
				out = append(out, sdk.NewUserMessage(block))
			}
		default:
			return nil, fmt.Errorf("message role %q is not one of user, assistant, tool", m.Role)
		}
		inResults = m.Role == llm.RoleTool
	}
	return out, nil
}

func toolResult(m llm.Message) sdk.ContentBlockParamUnion {
	r := &sdk.ToolResultBlockParam{ToolUseID: m.ToolCallID, IsError: sdk.Bool(m.IsError)}
	if m.Text != "" { // an empty text block is rejected; no content is not
		r.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: m.Text}}}
	}
	return sdk.ContentBlockParamUnion{OfToolResult: r}
}

// toolInput is a tool_use block's input: the model's arguments when they
// are a JSON object, else {}. The API requires an object, and a call whose
// arguments were broken has a result explaining that already.
func toolInput(args json.RawMessage) any {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil || obj == nil {
		return json.RawMessage(`{}`)
	}
	return args
}

// inputSchema sends a tool's JSON Schema as written (only checked to be an
// object), rather than through the SDK's struct, which would reorder it and
// lose numbers' spelling.
func inputSchema(schema json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(schema, &obj); err != nil || obj == nil {
		return sdk.ToolInputSchemaParam{}, fmt.Errorf("schema is not a JSON object: %w", cmp.Or(err, errors.New("null")))
	}
	return param.Override[sdk.ToolInputSchemaParam](schema), nil
}
