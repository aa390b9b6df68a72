package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/anthropic"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
)

// wires are the two APIs the fake validates as the real ones do.
func wires() []struct {
	name string
	dial func(*llmtest.Server) llm.Provider
} {
	return []struct {
		name string
		dial func(*llmtest.Server) llm.Provider
	}{
		{"openai", func(s *llmtest.Server) llm.Provider {
			return openai.New(openai.Config{APIKey: "sk-test", BaseURL: s.OpenAIBaseURL()})
		}},
		{"anthropic", func(s *llmtest.Server) llm.Provider {
			return anthropic.New(anthropic.Config{APIKey: "k", BaseURL: s.AnthropicBaseURL()})
		}},
	}
}

// sizedProvider checks, with the estimator the runner uses, that no
// request exceeds the window before passing it on.
type sizedProvider struct {
	llm.Provider
	window int
	mu     sync.Mutex
	max    int // the largest request seen
	over   []int
}

func (p *sizedProvider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	n := agent.EstimateRequest(req)
	p.mu.Lock()
	p.max = max(p.max, n)
	if n > p.window {
		p.over = append(p.over, n)
	}
	p.mu.Unlock()
	return p.Provider.Stream(ctx, req)
}

// Issue 30 §4, done means: a scripted 80-step task turn on a 16k-token
// window finishes without a context error, with a summary marked as such
// in the transcript. The fake model validates every request as the real
// APIs do (calls and results paired), on both wires.
func TestEightyStepTurnFitsSixteenK(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.name, func(t *testing.T) { eightySteps(t, w.dial, false) })
	}
	// With every summary call failing, the fallback still keeps each
	// request in the window.
	t.Run("summaries fail", func(t *testing.T) { eightySteps(t, wires()[0].dial, true) })
}

// eightySteps runs the 80-step turn; down makes every turn summary call
// fail (a 503).
func eightySteps(t *testing.T, dial func(*llmtest.Server) llm.Provider, down bool) {
	const steps, window = 80, 16000
	h := newHarness(t, &testTool{name: "work", run: func(args json.RawMessage) (string, error) {
		// ~1,500 characters a step: 80 of them are ~30k tokens, about twice the window.
		return "done " + string(args) + "\n" + strings.Repeat("log line of the step's output\n", 50), nil
	}})
	withTasks(t, h)
	sized := &sizedProvider{Provider: h.runner.Provider, window: window}
	h.runner.Provider = sized
	h.runner.ContextWindow = window
	h.runner.TaskSteps = steps + 5
	h.runner.MaxChecks = -1
	var taskCalls, summaries atomic.Int64
	h.srv.Close()
	h.srv = llmtest.NewServer(llmtest.WithResponder(func(r llmtest.Request) llmtest.Reply {
		if strings.Contains(string(r.Body), "You compact the earlier steps of a task") {
			n := summaries.Add(1)
			if down {
				return llmtest.Status(503)
			}
			return llmtest.Text(fmt.Sprintf("Summary %d: the plan is to migrate 80 files; steps so far done, no errors; files in deploy/.", n))
		}
		switch n := taskCalls.Add(1); {
		case n == 1:
			args, _ := json.Marshal(map[string]any{"items": []map[string]string{{"text": "migrate the files", "status": "in_progress"}}})
			return llmtest.ToolCall("plan1", "todo", string(args))
		case n <= steps:
			return llmtest.ToolCall(fmt.Sprintf("call%d", n), "work", fmt.Sprintf(`{"file":"deploy/f%d.yaml"}`, n))
		default:
			return llmtest.Text("All 80 files migrated.")
		}
	}))
	t.Cleanup(h.srv.Close)
	sized.Provider = dial(h.srv)

	evs, err := collect(t.Context(), h.runner, turn(h.session(t, "ana"), "ana", "migrate every file in deploy/"))
	if err != nil {
		t.Fatalf("the turn failed after %d model calls: %v", taskCalls.Load(), err)
	}
	methods := map[string]int{}
	for _, ev := range evs {
		if ev.Kind == agent.EventCompaction {
			methods[ev.Compaction.Method]++
		}
	}
	if last := evs[len(evs)-1]; last.Text != "All 80 files migrated." || taskCalls.Load() != steps+1 {
		t.Fatalf("answer %q after %d task calls", last.Text, taskCalls.Load())
	}
	if len(sized.over) > 0 || summaries.Load() == 0 {
		t.Fatalf("requests over the %d-token window: %v; turn summary calls: %d", window, sized.over, summaries.Load())
	}
	msgs, err := h.db.Messages(t.Context(), h.session(t, "ana"))
	if err != nil {
		t.Fatal(err)
	}
	var marked []string
	for _, m := range msgs {
		if text, ok := agent.IsSummary(m); ok && strings.HasPrefix(m.Text, agent.TurnSummaryPrefix) {
			marked = append(marked, text)
		}
	}
	// One summary, the model's — or, with the model down, what snipping
	// or an extractive summary left.
	want := "Summary "
	if down {
		want = "(extractive summary"
	}
	if len(marked) != 1 || !strings.HasPrefix(marked[0], want) {
		t.Fatalf("turn summaries in the transcript: %q, want one starting %q (a later one folds the earlier)", marked, want)
	}
	t.Logf("80 steps: %d turn summary calls, compactions %v, largest request %d of %d tokens", summaries.Load(), methods, sized.max, window)
}
