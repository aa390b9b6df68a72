package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
)

// tool is one MCP tool as an agent.Tool.
type tool struct {
	server *server
	name   string // the tool's own name on its server
	spec   llm.ToolSpec
	// validator checks arguments against the schema the server
	// published, not the sanitized one the model saw. nil when that
	// schema cannot be resolved (remote refs, say): the server then is
	// the only judge.
	validator *jsonschema.Resolved
}

var _ agent.Approvable = (*tool)(nil)

func newTool(srv *server, t *sdk.Tool, logger *slog.Logger) (*tool, error) {
	if t.Name == "" {
		return nil, errors.New("no name")
	}
	// The SDK hands the client the schema as a map; back to JSON for both
	// the sanitizer and the validator.
	var raw json.RawMessage
	if t.InputSchema != nil {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("input schema: %w", err)
		}
		raw = b
	}
	sanitized, err := llm.SanitizeSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	validator, err := resolveSchema(raw)
	if err != nil {
		logger.Warn("mcp tool schema cannot be resolved; arguments are left to the server to check",
			"tool", t.Name, "error", err)
	}
	description := t.Description
	if description == "" {
		description = t.Title
	}
	return &tool{
		server: srv,
		name:   t.Name,
		spec: llm.ToolSpec{
			Name:        llm.SanitizeToolName(srv.name + "__" + t.Name),
			Description: description,
			Schema:      sanitized,
		},
		validator: validator,
	}, nil
}

func resolveSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
}

func (t *tool) Name() string { return t.spec.Name }

func (t *tool) Spec() llm.ToolSpec { return t.spec }

// ApprovalPolicy asks for approval unless the operator trusts the server.
// Annotations like readOnlyHint are the server's own claims and change
// nothing.
func (t *tool) ApprovalPolicy() agent.Policy {
	if t.server.trusted {
		return agent.PolicyNever
	}
	return agent.PolicyAlways
}

// ApprovalMandatory: an untrusted server's tools are approved by a
// configured approver, whatever tools.approval.never says; trusting the
// server (tools.mcp.servers[].trusted) is how an operator waives it.
func (t *tool) ApprovalMandatory() bool { return !t.server.trusted }

// UntrustedOutput: whatever a server returns is text from outside, even a
// trusted server's (it may relay a web page or an issue comment).
func (t *tool) UntrustedOutput() bool { return true }

// EgressTargets: a trusted server's tools are the operator's to vouch
// for; any other's call sends its arguments to the server, and to every
// address they name (agent.ArgTargets).
func (t *tool) EgressTargets(args json.RawMessage) []string {
	if t.server.trusted {
		return nil
	}
	return agent.ArgTargets(args)
}

// maxSummaryArgs bounds the arguments shown to an approver, in runes.
const maxSummaryArgs = 200

// Summarize reads "<server>: <tool>(<arguments>)", on one line, with the
// arguments compacted and cut short.
func (t *tool) Summarize(args json.RawMessage) string {
	shown := strings.TrimSpace(string(args))
	var buf bytes.Buffer
	if json.Compact(&buf, args) == nil {
		shown = buf.String()
	}
	if utf8.RuneCountInString(shown) > maxSummaryArgs {
		shown = string([]rune(shown)[:maxSummaryArgs]) + "…"
	}
	return oneLine(fmt.Sprintf("%s: %s(%s)", t.server.name, t.name, shown))
}

// oneLine blanks control and format characters: the tool name and the
// arguments come from a server and a model, and must not be able to fake
// extra lines or reorder text (bidi overrides) in an approval prompt.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return ' '
		}
		return r
	}, s)
}

// Execute checks the arguments and calls the tool. A transport or protocol
// failure and a tool's own failure (IsError) both come back as errors, the
// latter carrying the server's text for the model to read.
func (t *tool) Execute(ctx context.Context, _ agent.Caller, args json.RawMessage) (string, error) {
	res, err := t.call(ctx, args)
	if err != nil {
		return "", err
	}
	return resultText(res)
}

var _ agent.ImageResults = (*tool)(nil)

// ExecuteImages is Execute with the result's pictures returned beside its
// text (agent.ImageResults): the runner shows them to the model after the
// tool results. The text still names each picture, so the model knows
// which result it came with.
func (t *tool) ExecuteImages(ctx context.Context, _ agent.Caller, args json.RawMessage) (string, []llm.Image, error) {
	res, err := t.call(ctx, args)
	if err != nil {
		return "", nil, err
	}
	text, err := resultText(res)
	if err != nil {
		return "", nil, err
	}
	return text, images(t.server.name+"__"+t.name, res.Content), nil
}

// call checks the arguments and calls the tool; a tool's own failure is
// an error with its text.
func (t *tool) call(ctx context.Context, args json.RawMessage) (*sdk.CallToolResult, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	var instance any
	if err := json.Unmarshal(args, &instance); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %w", err)
	}
	switch instance.(type) {
	case map[string]any:
	case nil: // some models send null for a tool without parameters
		args, instance = json.RawMessage("{}"), map[string]any{}
	default:
		return nil, errors.New("arguments must be a JSON object")
	}
	if t.validator != nil {
		if err := t.validator.Validate(instance); err != nil {
			return nil, fmt.Errorf("invalid arguments: %w", err)
		}
	}
	res, err := t.server.session.CallTool(ctx, &sdk.CallToolParams{Name: t.name, Arguments: args})
	if ctx.Err() != nil {
		return nil, fmt.Errorf("mcp server %s: %s: %w", t.server.name, t.name, ctx.Err())
	}
	if err != nil {
		return nil, fmt.Errorf("mcp server %s: %s: %w", t.server.name, t.name, err)
	}
	if res.IsError {
		return nil, errors.New(errorText(res))
	}
	return res, nil
}
