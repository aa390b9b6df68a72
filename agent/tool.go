package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/parleybot/parley/agent/llm"
)

// Caller says on whose behalf a tool runs. Tools that touch per-user state
// (memory) must use Caller.UserKey and nothing the model wrote, so a model
// can never reach another user's data.
type Caller struct {
	SessionID string
	// Workspace is the session whose shell workspace the turn's commands
	// run in: "" is SessionID's own. A task's helpers share their task's
	// (agent/task), so what a helper writes its task reads.
	Workspace string
	UserKey   string // "platform:id"
	UserName  string
	// Scopes are the scopes the turn's document lookups (kb_search)
	// cover: bot.Where.SearchedKeys of where the message was written,
	// those visible there that the turn's agent searches. Tools use these
	// and nothing the model wrote.
	Scopes []string
	// Learned are the scopes whose skills and self-memo the turn sees:
	// the visible ones as its agent learns in them (bot.Where.LearnedKeys),
	// so that one agent's skills never show in another's turns.
	Learned []string
	// Tainted says the turn has read untrusted content — a fetched page,
	// an MCP result, another person's message — so what it proposes to
	// keep (memory) may have been planted and needs the person's own
	// confirmation.
	Tainted bool
	// Confirm asks the caller to confirm a memory edit a tainted turn
	// proposes; nil where no one can be asked, and such edits are refused.
	Confirm MemoryConfirmer
	// Team is the place whose team notes the turn sees and may write
	// (bot.Where.Team: a space scope's key); "" in a direct chat, which
	// has none. TeamDesk reads and writes them; nil: no team notes.
	Team     string
	TeamDesk TeamDesk
	// History searches the past conversations the author may see where
	// the turn runs (history_search); nil: none.
	History History
	// Approve asks approvers about a tool call that needs approval; nil
	// where no one can approve, and such calls are refused. Helpers a
	// turn starts ask the same.
	Approve Approver
	// Runner is the runner the call runs in (set for each call), for tools
	// that run turns of their own: agent/task's helpers.
	Runner *Runner
	// Origin is where the turn runs, for tools that act there later.
	Origin Origin
	// Reach says whom the turn may call (ping) where it runs: reminders
	// for others. nil where no one but the caller may be called.
	Reach Reach
	// CallID is the id of the tool call being run, for tools that keep
	// work across calls (delegate) and must tell a call a crash cut off
	// from one whose result the model read.
	CallID string
	// Wake fires when the turn's author writes in the conversation while
	// the turn runs (Turn.Wake), for a tool that waits on them
	// (agent/task's wait); nil where no one can.
	Wake <-chan struct{}
	// Reminded receives the text of a reminder of the author's shown in
	// the conversation while the turn runs (Turn.Reminded), for a tool
	// that waits for one; nil where none can be.
	Reminded <-chan string
}

// Reach is the chat core's answer to "may this turn call that person
// here?": only a member of the place who may use Parley there. A person
// outside it must not be pinged into a conversation on someone's say.
type Reach interface {
	// MayCall is nil when userKey ("platform:id") may be called in o, or
	// says why not.
	MayCall(ctx context.Context, o Origin, userKey string) error
}

// Origin is where a turn runs, as the chat core addresses it (chat.Thread
// and bot.Where), for tools that act there later: a reminder delivered in
// this thread, a scheduled run in this channel.
type Origin struct {
	Platform, Space, Chat, Thread string
	// Direct: the person's private chat with Parley.
	Direct bool
	// Home is the scope what the turn creates belongs to
	// (bot.Where.Home): reminders and schedules are kept there.
	Home string
}

// Tool is something the model may call.
type Tool interface {
	// Name is Spec's Name, without the cost Spec may have (a schema
	// generated on first use: Func).
	Name() string
	Spec() llm.ToolSpec
	// Execute runs the tool with arguments already validated against the
	// tool's schema. A returned error becomes an error result the model sees.
	Execute(ctx context.Context, caller Caller, args json.RawMessage) (string, error)
}

// Policy says whether a tool needs a person's approval before it runs.
type Policy string

const (
	PolicyNever  Policy = "never"
	PolicyAlways Policy = "always"
)

// Approvable is implemented by tools whose default policy is not "never".
type Approvable interface {
	ApprovalPolicy() Policy
	// Summarize describes in one line what the call will do, for the person
	// who has to approve it.
	Summarize(args json.RawMessage) string
}

// Inspector is implemented by tools whose call does more than its
// arguments show: a shell command that runs a script from the workspace.
// Inspect replaces Summarize and Risks for the approval, with what the
// call will run as the caller would run it now; the runner inspects an
// approved call again just before it runs and refuses it when the summary
// changed (a script rewritten after its approval).
type Inspector interface {
	Inspect(c Caller, args json.RawMessage) (summary string, risks []string)
}

// Mandatory is implemented by tools whose approval no configuration may
// waive (shell, an untrusted MCP server): the runner ignores Policies
// overrides for them, and only a configured approver may approve them.
type Mandatory interface {
	ApprovalMandatory() bool
}

// Untrusted is implemented by tools whose results carry text from outside
// (a web page, an MCP server): after one runs, the turn is tainted.
type Untrusted interface {
	UntrustedOutput() bool
}

// MarkUntrusted returns t marked as a tool whose results carry text from
// outside (Untrusted).
func MarkUntrusted(t Tool) Tool { return untrustedTool{t} }

type untrustedTool struct{ Tool }

func (untrustedTool) UntrustedOutput() bool { return true }

// Risky is implemented by tools that can tell an approver what is risky
// about a call (a shell command piping a download into a shell).
type Risky interface {
	Risks(args json.RawMessage) []string
}

// Func builds a Tool from a typed function. The input schema is generated
// from T (google/jsonschema-go: field json names, `jsonschema:"…"` tags for
// descriptions, omitempty for optional fields) and every call's arguments
// are validated against it before fn runs.
//
// The schema is generated on first use (Spec or Execute), not here: start-up
// builds every tool and uses none, and generating the ~40 schemas by
// reflection was a fifth of the time to the first poll (docs/footprint.md).
// A T that jsonschema cannot describe is a programming error, and panics
// there; every tool's tests call Spec. The returned error is for a name a
// model API would refuse.
func Func[T any](name, description string, fn func(ctx context.Context, c Caller, args T) (string, error)) (Tool, error) {
	if name == "" || llm.SanitizeToolName(name) != name {
		return nil, fmt.Errorf("tool %q: not a valid tool name", name)
	}
	return &funcTool[T]{
		name:   name,
		schema: sync.OnceValue(func() funcSchema { return schemaOf[T](name, description) }),
		fn:     fn,
	}, nil
}

// funcSchema is what a funcTool's T generates: the spec the model sees and
// the schema its arguments are validated against.
type funcSchema struct {
	spec     llm.ToolSpec
	resolved *jsonschema.Resolved
}

func schemaOf[T any](name, description string) funcSchema {
	schema, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: schema: %v", name, err))
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: resolve schema: %v", name, err))
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("tool %s: marshal schema: %v", name, err))
	}
	return funcSchema{spec: llm.ToolSpec{Name: name, Description: description, Schema: raw}, resolved: resolved}
}

type funcTool[T any] struct {
	name   string
	schema func() funcSchema
	fn     func(context.Context, Caller, T) (string, error)
}

func (t *funcTool[T]) Name() string { return t.name }

func (t *funcTool[T]) Spec() llm.ToolSpec { return t.schema().spec }

func (t *funcTool[T]) Execute(ctx context.Context, c Caller, args json.RawMessage) (string, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var instance any
	if err := json.Unmarshal(args, &instance); err != nil {
		return "", fmt.Errorf("arguments are not valid JSON: %w", err)
	}
	if err := t.schema().resolved.Validate(instance); err != nil {
		return "", fmt.Errorf("invalid arguments: %w", err)
	}
	var v T
	if err := json.Unmarshal(args, &v); err != nil {
		return "", fmt.Errorf("invalid arguments: %w", err)
	}
	return t.fn(ctx, c, v)
}

// WorkspaceID is the session whose shell workspace c's commands run in.
func (c Caller) WorkspaceID() string { return cmp.Or(c.Workspace, c.SessionID) }
