package anthropic

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/parleybot/parley/agent/llm"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
)

// newParams maps a neutral request to Messages API parameters.
//
// Prompt caching: the API caches a prompt's prefix up to each block marked
// with cache_control. Two marks suffice: the end of the system prompt,
// which covers the tools and the system prompt (the API puts tools first),
// and the last block of the conversation, before the request's Tail — the
// next call repeats the same prefix and reads it from the cache, and the
// API looks back from a mark for the longest prefix written before.
func newParams(req llm.Request) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{
		Model:     req.Model,
		MaxTokens: int64(DefaultMaxTokens),
	}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System, CacheControl: sdk.NewCacheControlEphemeralParam()}}
	}
	msgs, err := messages(llm.ToolIDs(req.Messages))
	if err != nil {
		return p, err
	}
	markTail(msgs)
	p.Messages = withTail(msgs, req.Tail)
	if b := req.Reasoning.Budget; b >= llm.MinReasoningBudget && thinkingAllowed(req.Messages) {
		// max_tokens counts thinking and answer together.
		p.Thinking = sdk.ThinkingConfigParamOfEnabled(int64(b))
		p.MaxTokens += int64(b)
	}
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
	if f := req.Format; f != nil {
		// Structured output as a tool the model must call: every Claude
		// model supports it (output_config.format only the newest).
		// Forcing a tool is refused while thinking, so then it is offered.
		schema, err := inputSchema(f.Schema)
		if err != nil {
			return p, fmt.Errorf("format %q: %w", f.Name, err)
		}
		tool := &sdk.ToolParam{Name: f.Name, InputSchema: schema}
		if f.Description != "" {
			tool.Description = sdk.String(f.Description)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: tool})
		if p.Thinking.OfEnabled == nil {
			p.ToolChoice = sdk.ToolChoiceParamOfTool(f.Name)
		}
	}
	if req.System == "" && len(p.Tools) > 0 {
		p.Tools[len(p.Tools)-1].OfTool.CacheControl = sdk.NewCacheControlEphemeralParam()
	}
	return p, nil
}

// markTail marks the conversation's last block as a cache breakpoint.
func markTail(msgs []sdk.MessageParam) {
	if len(msgs) == 0 {
		return
	}
	var content []sdk.ContentBlockParamUnion
	switch last := msgs[len(msgs)-1]; {
	case last.OfUser != nil:
		content = last.OfUser.Content
	case last.OfAssistant != nil:
		content = last.OfAssistant.Content
	}
	if len(content) == 0 {
		return
	}
	if cc := content[len(content)-1].GetCacheControl(); cc != nil {
		*cc = sdk.NewCacheControlEphemeralParam()
	}
}

// withTail adds the request's Tail after the conversation: to the last
// message when it is the user's (tool results included), else as a user
// message of its own.
func withTail(msgs []sdk.MessageParam, tail string) []sdk.MessageParam {
	if tail == "" {
		return msgs
	}
	block := sdk.NewTextBlock(tail)
	if n := len(msgs); n > 0 && msgs[n-1].OfUser != nil {
		last := msgs[n-1].OfUser
		last.Content = append(last.Content, block)
		return msgs
	}
	return append(msgs, sdk.NewUserMessage(block))
}

// thinkingAllowed reports whether a call may think. The API wants the
// assistant message that a call continues (its tool results are the last
// messages) to begin with its thinking, and refuses thinking otherwise: a
// tool loop begun without thinking, or on another model (whose thinking
// ForModel left out), finishes without. User messages after the results
// (a tool's pictures, lifted out of them; a person steering) do not end
// the loop: the API joins consecutive user messages into one.
func thinkingAllowed(msgs []llm.Message) bool {
	i := len(msgs) - 1
	for i >= 0 && msgs[i].Role == llm.RoleUser {
		i--
	}
	j := i
	for j >= 0 && msgs[j].Role == llm.RoleTool {
		j--
	}
	if j == i { // no tool results end the request
		return true
	}
	return j < 0 || msgs[j].Role != llm.RoleAssistant || slices.ContainsFunc(msgs[j].Thinking, signed)
}

// signed reports whether t can go back to the API: a block it wrote
// carries its signature, or is redacted. Reasoning without one (an
// OpenAI-compatible server's) is never sent.
func signed(t llm.Thinking) bool { return t.Redacted != "" || t.Signature != "" }

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
			blocks := make([]sdk.ContentBlockParamUnion, 0, len(m.Thinking)+1+len(m.ToolCalls))
			// Thinking first, verbatim and in order, as the API wrote it.
			for _, t := range m.Thinking {
				switch {
				case !signed(t):
				case t.Redacted != "":
					blocks = append(blocks, sdk.NewRedactedThinkingBlock(t.Redacted))
				default:
					blocks = append(blocks, sdk.NewThinkingBlock(t.Signature, t.Text))
				}
			}
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
