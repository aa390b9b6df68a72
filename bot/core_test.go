package bot_test

import (
	"context"
	"iter"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/tools"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// countingProvider counts the model calls of a scripted provider.
type countingProvider struct {
	llm.Provider
	calls atomic.Int32
	mu    sync.Mutex
	reqs  []llm.Request
}

func (p *countingProvider) Stream(ctx context.Context, r llm.Request) iter.Seq2[llm.Event, error] {
	p.calls.Add(1)
	p.mu.Lock()
	p.reqs = append(p.reqs, r)
	p.mu.Unlock()
	return p.Provider.Stream(ctx, r)
}

// requests returns the model requests so far.
func (p *countingProvider) requests() []llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]llm.Request(nil), p.reqs...)
}

// coreWorld is the whole chat core (bot.NewCore) over a fake platform, a
// real SQLite file and a scripted model, restartable over the same file.
type coreWorld struct {
	path   string
	fake   *bottest.Adapter
	tool   *countingTool
	access bot.Access
	limits bot.Limits
	tools  []agent.Tool // beside tool
	memory bool         // and the memory tool
	model  *countingProvider
	// provider answers instead of start's script, when set.
	provider llm.Provider
	// reminders turns on reminders and schedules (timekeeper_test.go).
	reminders bool
	// setup changes the core's config before each start (tasks_test.go).
	setup func(cfg *bot.CoreConfig, db *store.DB)
	// onCore gets each core started (metrics_test.go).
	onCore func(*bot.Core)
	db     *store.DB
	cancel context.CancelFunc
	done   chan error
}

func newCoreWorld(t *testing.T, fake *bottest.Adapter) *coreWorld {
	return &coreWorld{path: filepath.Join(t.TempDir(), "parley.db"), fake: fake, tool: &countingTool{}}
}

// start runs a fresh core process answering with script.
func (w *coreWorld) start(t *testing.T, script ...llm.Response) {
	t.Helper()
	db, err := store.Open(context.Background(), w.path)
	if err != nil {
		t.Fatal(err)
	}
	w.db = db
	var provider llm.Provider = llmtest.NewInstant(script...)
	if w.provider != nil {
		provider = w.provider
	}
	w.model = &countingProvider{Provider: provider}
	ts := append([]agent.Tool{w.tool}, w.tools...)
	if w.memory {
		mem, err := tools.Memory(db, agent.MemoryLimits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, mem)
	}
	runner := &agent.Runner{RunnerConfig: agent.RunnerConfig{Provider: w.model, Sessions: db, Memory: db, Tools: ts, Logger: slog.New(slog.DiscardHandler)}}
	cfg := bot.CoreConfig{Adapters: []chat.Adapter{w.fake}, Store: db, Runner: runner, Audit: db,
		Access: slackOpen(w.access), Limits: w.limits, Logger: slog.New(slog.DiscardHandler)}
	if w.reminders {
		withReminders(t, &cfg, db)
	}
	if w.setup != nil {
		w.setup(&cfg, db)
	}
	core, err := bot.NewCore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if w.onCore != nil {
		w.onCore(core)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done = cancel, make(chan error, 1)
	go func() { w.done <- core.Run(ctx) }()
}

// stop ends the process: what it was doing stays as a crash leaves it
// (inbox unfinished, approval pending, no tool result).
func (w *coreWorld) stop(t *testing.T) {
	t.Helper()
	w.cancel()
	if err := <-w.done; err != nil {
		t.Fatal(err)
	}
	w.db.Close()
}

// approvalPrompt returns the message carrying Approve / Deny buttons.
func (w *coreWorld) approvalPrompt(t *testing.T, th chat.Thread) bottest.Msg {
	t.Helper()
	for _, m := range w.fake.Messages(th) {
		if len(m.Buttons) == 2 {
			return m
		}
	}
	t.Fatalf("no approval prompt in %v: %+v", th, w.fake.Messages(th))
	return bottest.Msg{}
}

var coreThread = chat.Thread{Platform: "slack", Space: "W", Chat: "C1", ID: "100.1"}

func coreMention(key, user, text string) chat.Message {
	return chat.Message{Key: key, ID: key, Thread: coreThread, Text: text, Mentioned: true,
		User: chat.User{Platform: "slack", ID: user, Name: user}}
}

// TestApprovalPendingAcrossCrash: the process dies while a risky tool waits
// for approval. After the restart the turn waits again on the same
// approval (nothing is healed as interrupted, the model is not asked), and
// the decision taken after the restart continues it once: approved, the
// tool runs once and the answer comes after it; denied, nothing runs.
func TestApprovalPendingAcrossCrash(t *testing.T) {
	for _, tt := range []struct {
		name    string
		button  int // 0 Approve, 1 Deny
		runs    int
		final   string
		decided string
	}{
		{"approved after restart", 0, 1, "Deployed.", "Approved by ana"},
		{"denied after restart", 1, 0, "Not deployed.", "Denied by ana"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newCoreWorld(t, bottest.New(bottest.Config{Platform: "slack", Capabilities: chat.Capabilities{MaxLen: 4000, Buttons: true, Ephemeral: true}}))
				w.start(t, llm.Response{ToolCalls: []llm.ToolCall{{ID: "d1", Name: "deploy", Arguments: []byte(`{}`)}}})
				if err := w.fake.InjectMessage(t.Context(), coreMention("k1", "ana", "deploy please")); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				prompt := w.approvalPrompt(t, coreThread)
				w.stop(t) // the crash

				w.start(t, llm.Response{Text: tt.final})
				defer w.stop(t)
				synctest.Wait()
				if n := w.model.calls.Load(); n != 0 {
					t.Fatalf("the restart asked the model %d times while the approval was pending", n)
				}
				sid, _, _ := w.db.BoundSession(t.Context(), coreThread)
				msgs, _ := w.db.Messages(t.Context(), sid)
				if last := msgs[len(msgs)-1]; last.Role != llm.RoleAssistant || len(last.ToolCalls) != 1 {
					t.Fatalf("the pending call was settled by the restart: %+v", last)
				}
				if n, _ := w.db.SessionApprovals(t.Context(), sid); len(n) != 1 || n[0].Status != approvals.StatusPending {
					t.Fatalf("approvals after the restart: %+v", n)
				}

				click := chat.Action{Key: "click1", Thread: coreThread, User: chat.User{Platform: "slack", ID: "ana", Name: "ana"},
					Data: prompt.Buttons[tt.button].Data, Message: prompt.Ref}
				if err := w.fake.InjectAction(t.Context(), click); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				if w.tool.runs != tt.runs {
					t.Fatalf("the tool ran %d times, want %d", w.tool.runs, tt.runs)
				}
				if n := w.model.calls.Load(); n != 1 {
					t.Fatalf("%d model calls after the decision, want 1", n)
				}
				var decidedAt, answeredAt, answers int
				for i, c := range w.fake.Calls() {
					if c.Err != nil {
						continue
					}
					if c.Ref.ID == prompt.Ref.ID && strings.Contains(c.Out.Text, tt.decided) {
						decidedAt = i
					}
					if c.Out.Text == tt.final {
						answeredAt = i
						answers++
					}
				}
				if answers != 1 || decidedAt == 0 || answeredAt < decidedAt {
					t.Fatalf("want the decision shown, then the one answer %q: %+v", tt.final, w.fake.Calls())
				}
				if left, _ := w.db.Unfinished(t.Context()); len(left) != 0 {
					t.Fatalf("unfinished after the answer: %+v", left)
				}
			})
		})
	}
}
