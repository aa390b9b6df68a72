package task_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// model is an llm.Provider scripted per conversation, so helpers running at
// once each get their own answers: a request goes to the script whose key
// its first user message contains (a helper's names its item), the one
// scripted last when several do. Each step takes its delay first — on the
// fake clock under synctest.
type model struct {
	mu      sync.Mutex
	keys    []string // in the order scripted
	scripts map[string][]step
	calls   map[string]int
	reqs    map[string][]llm.Request
	// seen, when set, is called at each request with its script's key.
	seen func(key string)
}

type step struct {
	delay time.Duration
	resp  llm.Response
	err   error
	block bool // never answers: waits for the request to be cancelled
}

func newModel() *model {
	return &model{scripts: map[string][]step{}, calls: map[string]int{}, reqs: map[string][]llm.Request{}}
}

// helperKey routes the requests of item n's helper.
func helperKey(n int) string { return fmt.Sprintf("working on item %d of", n) }

func (m *model) on(key string, steps ...step) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.scripts[key]; !ok {
		m.keys = append(m.keys, key)
	}
	m.scripts[key] = append(m.scripts[key], steps...)
}

// count is how many requests a script's conversation made.
func (m *model) count(key string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[key]
}

// requests returns the requests a script's conversation made.
func (m *model) requests(key string) []llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]llm.Request(nil), m.reqs[key]...)
}

func (m *model) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	key, s, err := m.next(req)
	if m.seen != nil && err == nil {
		m.seen(key)
	}
	return func(yield func(llm.Event, error) bool) {
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		wait := s.delay
		if s.block {
			wait = 1000 * time.Hour
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			yield(llm.Event{}, ctx.Err())
			return
		}
		if s.err != nil {
			yield(llm.Event{}, s.err)
			return
		}
		resp := s.resp
		if resp.Text != "" && !yield(llm.Event{Kind: llm.EventTextDelta, Text: resp.Text}, nil) {
			return
		}
		yield(llm.Event{Kind: llm.EventDone, Response: &resp}, nil)
	}
}

func (m *model) next(req llm.Request) (string, step, error) {
	first := ""
	for _, msg := range req.Messages {
		if msg.Role == llm.RoleUser {
			first = msg.Text
			break
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, key := range slices.Backward(m.keys) {
		if !strings.Contains(first, key) {
			continue
		}
		steps := m.scripts[key]
		m.calls[key]++
		m.reqs[key] = append(m.reqs[key], req)
		if len(steps) == 0 {
			return key, step{}, fmt.Errorf("model: no step left for %q", key)
		}
		m.scripts[key] = steps[1:]
		return key, steps[0], nil
	}
	return "", step{}, fmt.Errorf("model: no script for %q", first)
}

// say answers text after delay.
func say(delay time.Duration, text string) step {
	return step{delay: delay, resp: llm.Response{Text: text, StopReason: llm.StopEnd}}
}

// call calls a tool after delay.
func call(delay time.Duration, id, name string, args any) step {
	raw, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return step{delay: delay, resp: llm.Response{ToolCalls: []llm.ToolCall{{ID: id, Name: name, Arguments: raw}}, StopReason: llm.StopToolUse}}
}

// delegateCall is the parent calling delegate for items, each with the
// instruction "do item n".
func delegateCall(id string, items ...int) step {
	var a task.DelegateArgs
	for _, n := range items {
		a.Helpers = append(a.Helpers, task.HelperArgs{Item: n, Instruction: fmt.Sprintf("do item %d", n)})
	}
	return call(0, id, "delegate", a)
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// taskText starts the parent's conversation; its key routes the parent's
// requests.
const taskText = "TASK: check the three services"

var (
	thread = chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1.1"}
	author = agent.Caller{UserKey: "slack:U1", UserName: "ana", Scopes: []string{"space:slack:T1"},
		Origin: agent.Origin{Platform: "slack", Space: "T1", Chat: "C1", Thread: "1.1", Home: "space:slack:T1"}}
)

// rig is a runner with todo, delegate and a work tool over a real SQLite
// file, and a parent session with a three-item plan.
type rig struct {
	path     string
	db       *store.DB
	model    *model
	runner   *agent.Runner
	parent   string
	work     *workTool
	approver *approver
}

// newRig opens the database at path ("" for a new one) and builds the
// runner; configure adjusts the delegation before its tool is made.
func newRig(t *testing.T, path string, m *model, configure func(*task.Delegation)) *rig {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "parley.db")
	}
	db, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r := &rig{path: path, db: db, model: m, work: &workTool{}, approver: &approver{}}
	tasks := task.Tasks{Store: db}
	r.runner = &agent.Runner{RunnerConfig: agent.RunnerConfig{
		Provider:  m,
		Sessions:  db,
		Memory:    db,
		Plans:     tasks,
		MaxChecks: -1, // the check step is not what these tests are about
		Logger:    slog.New(slog.DiscardHandler),
	}}
	todo, err := tasks.Todo()
	if err != nil {
		t.Fatal(err)
	}
	d := task.Delegation{Tasks: tasks, Helpers: db}
	if configure != nil {
		configure(&d)
	}
	del, err := d.Tool()
	if err != nil {
		t.Fatal(err)
	}
	r.runner.Tools = []agent.Tool{todo, del, r.work, &riskyTool{}}
	if r.parent, err = db.SessionFor(t.Context(), thread); err != nil {
		t.Fatal(err)
	}
	return r
}

// plan gives the parent session a plan of items, all pending.
func (r *rig) plan(t *testing.T, items ...string) {
	t.Helper()
	var p task.Plan
	for _, it := range items {
		p.Items = append(p.Items, task.Item{Text: it, Status: task.Pending})
	}
	if _, err := r.db.SavePlan(t.Context(), r.parent, author.UserKey, p, nil); err != nil {
		t.Fatal(err)
	}
}

// turn is the author's message starting the parent's turn.
func (r *rig) turn() agent.Turn {
	c := author
	c.SessionID = r.parent
	c.Approve = r.approver
	return agent.Turn{SessionID: r.parent, Caller: c, Text: taskText, Key: "slack:T1:C1:1.1"}
}

// helpers returns the parent's helpers by item (the latest of each).
func (r *rig) helpers(t *testing.T) map[int]task.Helper {
	t.Helper()
	all, err := r.db.Helpers(t.Context(), r.parent)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]task.Helper{}
	for _, h := range all {
		out[h.Item] = h
	}
	return out
}

// toolResult is the text of the result of call id the parent's request
// carried.
func toolResult(req llm.Request, id string) string {
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool && m.ToolCallID == id {
			return m.Text
		}
	}
	return ""
}

// workTool is a tool helpers call; it counts its calls.
type workTool struct {
	mu    sync.Mutex
	calls int
}

func (w *workTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "work", Description: "works", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (t *workTool) Name() string { return t.Spec().Name }

func (w *workTool) Execute(context.Context, agent.Caller, json.RawMessage) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	return fmt.Sprintf("worked (%d)", w.calls), nil
}

// riskyTool needs a person's approval; it records who it ran for.
type riskyTool struct {
	mu  sync.Mutex
	ran []agent.Caller
}

func (*riskyTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "risky", Description: "needs approval", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (t *riskyTool) Name() string { return t.Spec().Name }

func (r *riskyTool) Execute(_ context.Context, c agent.Caller, _ json.RawMessage) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ran = append(r.ran, c)
	return "risky done", nil
}

func (*riskyTool) ApprovalPolicy() agent.Policy          { return agent.PolicyAlways }
func (*riskyTool) Summarize(args json.RawMessage) string { return "risky " + string(args) }

// approver approves everything and records what it was asked.
type approver struct {
	mu   sync.Mutex
	reqs []agent.ApprovalRequest
}

func (a *approver) Approve(_ context.Context, req agent.ApprovalRequest) (agent.Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqs = append(a.reqs, req)
	return agent.Decision{Approved: true, By: req.Caller.UserName}, nil
}
