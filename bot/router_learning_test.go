package bot_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/bot"
)

// scriptedTool fails with the given errors, one per call, then succeeds.
type scriptedTool struct {
	mu   sync.Mutex
	errs []error
}

func (s *scriptedTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "deploy", Description: "deploy", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (t *scriptedTool) Name() string { return t.Spec().Name }

func (s *scriptedTool) Execute(context.Context, agent.Caller, json.RawMessage) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errs) == 0 {
		return "deployed", nil
	}
	e := s.errs[0]
	s.errs = s.errs[1:]
	return "", e
}

// TestRunSignalsRecorded: each turn's signals are kept in the scope of
// the place it ran in; the author's next message correcting it marks it;
// a storm of transient failures scores nothing.
func TestRunSignalsRecorded(t *testing.T) {
	w := newWorld(t, "slack", bot.Access{})
	tool := &scriptedTool{errs: []error{errors.New("exit status 1: no such file: deploy.yaml")}}
	w.runner.Tools = append(w.runner.Tools, tool)
	ctx := t.Context()
	scope := "space:slack:W"

	w.srv.Enqueue(llmtest.ToolCall("c1", "deploy", `{}`), llmtest.ToolCall("c2", "deploy", `{}`), llmtest.Text("Deployed on the second try."))
	first := msg("slack", "C1", "1.1", "alice", "k1", "deploy it")
	first.Mentioned = true
	w.router.HandleMessage(ctx, first)
	w.router.Wait()

	w.srv.Enqueue(llmtest.Text("Sorry — staging it is."))
	fix := msg("slack", "C1", "1.1", "alice", "k2", "不对，应该是 staging")
	w.router.HandleMessage(ctx, fix)
	w.router.Wait()

	// Failures of the environment as a tool's Go errors carry them: the
	// runner classifies them by type (agent.Transient), not by words.
	tool.errs = []error{&llm.Error{Provider: "Deployer", Kind: llm.KindServer, Status: 503},
		fmt.Errorf("deploy: %w", context.DeadlineExceeded),
		&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}}
	w.srv.Enqueue(llmtest.ToolCall("c3", "deploy", `{}`), llmtest.ToolCall("c4", "deploy", `{}`),
		llmtest.ToolCall("c5", "deploy", `{}`), llmtest.Text("The network is flaky; I will not retry."))
	storm := msg("slack", "C1", "1.1", "alice", "k3", "and production?")
	w.router.HandleMessage(ctx, storm)
	w.router.Wait()

	// A weakness the channel's self-memo names: the next run about it is
	// marked (0.7, enough to reflect on).
	if err := w.db.SetMemo(ctx, scope, evolve.MemoSelf, "Good at deploys.\nWeakness: production rollbacks"); err != nil {
		t.Fatal(err)
	}
	w.srv.Enqueue(llmtest.Text("Roll back with the previous tag."))
	weak := msg("slack", "C1", "1.1", "alice", "k4", "how do production rollbacks work here?")
	w.router.HandleMessage(ctx, weak)
	w.router.Wait()

	runs, err := w.db.Runs(ctx, scope, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 4 {
		t.Fatalf("%d runs recorded in %s, want 4: %+v", len(runs), scope, runs)
	}
	if !runs[3].Weakness || runs[0].Weakness || runs[2].Weakness {
		t.Errorf("weakness per run: %v %v %v %v, want only the last", runs[0].Weakness, runs[1].Weakness, runs[2].Weakness, runs[3].Weakness)
	}
	if s := evolve.Score(runs[3].Signals, evolve.DefaultWeights()); s != 0.7 {
		t.Errorf("a run hitting a weakness scores %v, want 0.7", s)
	}
	wt := evolve.DefaultWeights()
	first0, second, third := runs[0], runs[1], runs[2]
	if first0.Key != "k1" || first0.RealErrors != 1 || !first0.Recovered || !first0.Corrected || first0.Author != "slack:alice" {
		t.Errorf("first run: %+v", first0)
	}
	if s := evolve.Score(first0.Signals, wt); !wt.Warranted(s) || s != 0.9 {
		t.Errorf("a corrected run scores %v", s)
	}
	if second.Corrected || second.RealErrors != 0 {
		t.Errorf("second run: %+v", second)
	}
	if third.TransientErrors != 3 || third.RealErrors != 0 || third.Recovered {
		t.Errorf("the storm's run: %+v", third)
	}
	if s := evolve.Score(third.Signals, wt); s != 0 {
		t.Errorf("a storm of network errors scores %v, want 0: no reflection", s)
	}
	if other, _ := w.db.Runs(ctx, "person:slack:alice", time.Time{}); len(other) != 0 {
		t.Errorf("a channel's runs were kept in alice's own scope: %+v", other)
	}
}
