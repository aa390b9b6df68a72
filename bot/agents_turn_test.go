package bot_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
	"github.com/parleybot/parley/agent/tools"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/chat"
)

// TestResumedTurnKeepsItsAgent: a turn in #C1, bound to agent a, is cut
// off by a shutdown while a tool runs; an admin rebinds #C1 to b; after
// the restart the turn continues with a — recovered from the inbox, or
// continued by an approval decided with no turn waiting — unless a is
// no longer configured, when it is resolved afresh (b).
func TestResumedTurnKeepsItsAgent(t *testing.T) {
	tests := []struct {
		name     string
		restartA bool // the restarted Parley still configures a
		approval bool // continued by an approval, not by recovery
		want     string
	}{
		{"recovered", true, false, "A-Bot"},
		{"approval decided after the restart", true, true, "A-Bot"},
		{"its agent gone", false, false, "B-Bot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, "slack", bot.Access{Admins: []string{"slack:root"}})
			m := msg("slack", "C1", "1.1", "U1", "k1", "build it")
			m.Mentioned = true

			// The first process: the turn runs a's build until shutdown,
			// or waits for build's approval.
			var build agent.Tool = &blockingTool{entered: make(chan struct{})}
			entered := build.(*blockingTool).entered
			if tt.approval {
				w.approvals = &approvals.Config{Store: w.db}
				w.fake.buttons, w.fake.posted = true, make(chan string, 1)
				build, entered = approvedTool{&blockingTool{}}, make(chan struct{})
				go func() {
					if asked := <-w.fake.posted; strings.Contains(asked, "build") {
						close(entered)
					}
				}()
			}
			r1 := newRouter(t, agentRouter(t, w, true, build), w.fake)
			ctx, stop := context.WithCancel(t.Context())
			ran := make(chan error, 1)
			go func() { ran <- r1.Run(ctx) }()
			w.srv.Enqueue(llmtest.ToolCall("b1", "build", `{}`))
			if err := r1.HandleMessage(t.Context(), m); err != nil {
				t.Fatal(err)
			}
			<-entered
			use := chat.Command{Key: "c1", Thread: m.Thread, User: chat.User{Platform: "slack", ID: "root"}, Name: "agent", Args: []string{"use", "b"}}
			if err := r1.HandleCommand(t.Context(), use); err != nil {
				t.Fatal(err)
			}
			stop()
			if err := <-ran; err != nil {
				t.Fatal(err)
			}
			if left, _ := w.db.Unfinished(t.Context()); len(left) != 1 {
				t.Fatalf("the cut-off turn left %d unfinished items, want 1", len(left))
			}

			// The restart: the agents as configured now, over the same
			// database; a's build does not block any more.
			w.fake.exitAtOnce = true
			build = &blockingTool{}
			if tt.approval {
				build = approvedTool{&blockingTool{}}
			}
			r2 := newRouter(t, agentRouter(t, w, tt.restartA, build), w.fake)
			w.srv.Enqueue(llmtest.Text("Built."))
			if tt.approval {
				sid, _, _ := w.db.BoundSession(t.Context(), m.Thread)
				rec := approvals.Record{ID: "ap1", SessionID: sid, ToolCallID: "b1", Requester: m.User.Key(), Status: approvals.StatusApproved}
				if err := r2.ResumeApproval(t.Context(), rec); err != nil {
					t.Fatal(err)
				}
				r2.Wait()
			} else if err := r2.Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			reqs := w.srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model calls, want 2", len(reqs))
			}
			system := reqs[1].LastText("system")
			for _, persona := range []string{"A-Bot", "B-Bot"} {
				if strings.Contains(system, persona) != (persona == tt.want) {
					t.Errorf("the resumed turn's prompt has %s: %v; want %s to answer", persona, strings.Contains(system, persona), tt.want)
				}
			}
			// The next turn is a new one: b's, as bound now.
			w.srv.Enqueue(llmtest.Text("B here."))
			next := msg("slack", "C1", "1.1", "U1", "k2", "and now?")
			next.Mentioned = true
			if err := r2.HandleMessage(t.Context(), next); err != nil {
				t.Fatal(err)
			}
			r2.Wait()
			if reqs := w.srv.Requests(); !strings.Contains(reqs[len(reqs)-1].LastText("system"), "B-Bot") {
				t.Errorf("the next turn was not b's")
			}
		})
	}
}

// agentRouter is w's router configuration with agents a (unless withA is
// false) and b, each offered memory and build, and #C1 bound to a.
func agentRouter(t *testing.T, w *world, withA bool, build agent.Tool) bot.RouterConfig {
	t.Helper()
	mem, err := tools.Memory(w.db, agent.MemoryLimits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	runner := func(persona string) *agent.Runner {
		return &agent.Runner{RunnerConfig: agent.RunnerConfig{
			Provider: openai.New(openai.Config{APIKey: "sk-test", BaseURL: w.srv.OpenAIBaseURL()}),
			Sessions: w.db, Memory: w.db, Tools: []agent.Tool{mem, build}, Persona: persona, Logger: slog.New(slog.DiscardHandler),
		}}
	}
	list := []bot.Agent{{Name: bot.DefaultAgent, Runner: w.runner}, {Name: "b", Runner: runner("You are B-Bot.")}}
	var bindings []bot.Binding
	if withA {
		list = append(list, bot.Agent{Name: "a", Runner: runner("You are A-Bot.")})
		bindings = append(bindings, bot.Binding{Place: place(t, "slack:channel:C1"), Agent: "a"})
	}
	ags, err := bot.NewAgents(list, bindings)
	if err != nil {
		t.Fatal(err)
	}
	return bot.RouterConfig{
		Sessions: w.db, Inbox: w.db, KV: w.db, Runner: w.runner, Agents: ags,
		Commands: bot.NewSharedCommands(w.db, w.db, agent.MemoryLimits{}),
		Access:   w.access, Reply: w.replies.factory, Logger: slog.New(slog.DiscardHandler),
		Approvals: w.approvals,
	}
}

// blockingTool is build: with entered set, it says it started and runs
// until its turn is stopped; without, it is done at once.
type blockingTool struct {
	entered chan struct{}
	once    sync.Once
}

func (b *blockingTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "build", Description: "build", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (t *blockingTool) Name() string { return t.Spec().Name }

func (b *blockingTool) Execute(ctx context.Context, _ agent.Caller, _ json.RawMessage) (string, error) {
	if b.entered == nil {
		return "built", nil
	}
	b.once.Do(func() { close(b.entered) })
	<-ctx.Done()
	return "", ctx.Err()
}

// approvedTool is build needing approval each time.
type approvedTool struct{ *blockingTool }

func (approvedTool) ApprovalPolicy() agent.Policy     { return agent.PolicyAlways }
func (approvedTool) Summarize(json.RawMessage) string { return "build" }
