package evolve_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/guard"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
)

// What learning from use costs, in the units a bill counts: model calls
// and tokens per reflection cycle over a busy scope, and tokens the skill
// index adds to every turn. Run with
//
//	go test -tags sqlite_fts5 -run XXX -bench 'Reflection|SkillIndex' -benchtime 1x ./agent/evolve/
//
// Tokens are llmtest's estimate (one per 4 bytes of request), close to
// what OpenAI's tokenizer counts for English.

const scope = "space:slack:T1"

// busyScope is a scope with n conversations of a realistic length: a
// question, a tool call and its result, an answer, a follow-up; every
// tenth corrected, every seventh with a real error recovered from.
func busyScope(n int, now time.Time) (memRuns, memSessions) {
	var runs memRuns
	sessions := memSessions{}
	question := "Can you check why the nightly export to the analytics bucket failed for the EU tenant, and tell me whether it is safe to re-run it now? "
	answer := strings.Repeat("The export failed at the upload step because the bucket policy rejected the writer role; I re-ran it with the service account and it finished in 4 minutes. ", 4)
	for i := range n {
		id := fmt.Sprintf("s%02d", i)
		s := evolve.Signals{ToolCalls: 2}
		msgs := []llm.Message{
			{Role: llm.RoleUser, Text: question},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "shell", Arguments: []byte(`{"command":"exporter status --tenant eu"}`)}}},
			{Role: llm.RoleTool, ToolName: "shell", Text: strings.Repeat("2026-11-24T02:00:03Z upload: 403 AccessDenied for role writer\n", 6)},
			{Role: llm.RoleAssistant, Text: answer},
			{Role: llm.RoleUser, Text: "Thanks. And the US tenant?"},
			{Role: llm.RoleAssistant, Text: "The US export ran fine last night."},
		}
		if i%10 == 0 {
			s.Corrected = true
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, Text: "wrong, the writer role is fine; the bucket is in the wrong region"})
		}
		if i%7 == 0 {
			s.RealErrors, s.Recovered = 1, true
		}
		runs = append(runs, evolve.Run{Scope: scope, SessionID: id, At: now.Add(-time.Duration(n-i) * time.Hour), Signals: s})
		sessions[id] = msgs
	}
	return runs, sessions
}

// BenchmarkReflectionCycle50Conversations: one reflection over a scope
// with 50 conversations and 10 skills, the model creating a skill,
// patching one, rewriting the memo, then saving nothing (4 calls, the
// most a lesson-rich cycle makes in practice; MaxCalls caps it at 6).
func BenchmarkReflectionCycle50Conversations(b *testing.B) {
	srv := llmtest.NewServer()
	defer srv.Close()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	runs, sessions := busyScope(50, now)
	var calls, tokens, packet int
	for b.Loop() {
		b.StopTimer()
		files := evolve.Skills{Store: evolve.SkillFiles{Dir: b.TempDir()}, Now: func() time.Time { return now }}
		for i := range 10 {
			if _, _, err := files.Create(b.Context(), scope, fmt.Sprintf("Skill %d", i), fmt.Sprintf("when asked about topic %d: check the runbook first", i),
				"1. Read the runbook.\n2. Check the dashboard.\n3. Answer with the link."); err != nil {
				b.Fatal(err)
			}
		}
		x := &evolve.Reflect{
			Provider: openai.New(openai.Config{APIKey: "k", BaseURL: srv.OpenAIBaseURL()}), Model: "gpt-test",
			Files: files, Runs: runs, Sessions: sessions, Memo: memMemo{},
			Guard: func(_ context.Context, text string, existing []string) error { return guard.CheckWith(text, existing) },
			Now:   func() time.Time { return now },
		}
		srv.Enqueue(
			llmtest.ToolCall("r1", "skill_create", `{"name":"Bucket region","description":"when an export to a bucket fails with 403","steps":"1. Check the bucket's region first.\n2. Only then the role."}`),
			llmtest.ToolCall("r2", "skill_patch", `{"name":"Skill 1","old":"2. Check the dashboard.","new":"2. Check the EU dashboard."}`),
			llmtest.ToolCall("r3", "memo_update", `{"note":"self","text":"Good at reading exporter logs.\nWeakness: bucket regions in export failures"}`),
			llmtest.ToolCall("r4", "nothing_to_save", `{}`),
		)
		before := len(srv.Requests())
		a := evolve.NewAllowance(evolve.Budget{}, now)
		b.StartTimer()
		changes, err := x.Reflect(b.Context(), scope, a)
		b.StopTimer()
		if err != nil || len(changes) != 3 {
			b.Fatalf("changes %+v, %v", changes, err)
		}
		reqs := srv.Requests()[before:]
		calls, tokens = a.Calls, a.Tokens
		packet = agent.EstimateTokens(reqs[0].LastUserText())
		b.StartTimer()
	}
	b.ReportMetric(float64(calls), "calls/cycle")
	b.ReportMetric(float64(tokens), "tokens/cycle")
	b.ReportMetric(float64(packet), "packet-tokens")
}

// BenchmarkSkillIndex: the tokens the skill index adds to each model
// call (after the conversation: agent.TurnContext), and the time to build it, with 10, 50 and 200 skills in
// the scope (the index's budget is 3,000 tokens).
func BenchmarkSkillIndex(b *testing.B) {
	for _, n := range []int{10, 50, 200} {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			files := evolve.Skills{Store: evolve.SkillFiles{Dir: b.TempDir()}, Max: 500}
			for i := range n {
				if _, _, err := files.Create(b.Context(), scope, fmt.Sprintf("Skill number %d", i),
					fmt.Sprintf("when someone asks about the service-%d deploy or its alerts: follow the checklist", i),
					"1. Check the runbook.\n2. Answer with the link."); err != nil {
					b.Fatal(err)
				}
			}
			x := evolve.Index{Files: files}
			caller := agent.Caller{Learned: []string{"operator", scope}}
			var added, listed int
			for b.Loop() {
				list, err := x.SkillIndex(b.Context(), caller, "the service-7 deploy failed, what now?")
				if err != nil {
					b.Fatal(err)
				}
				added = agent.EstimateTokens(agent.TurnContext(list, agent.PlanView{}))
				listed = len(list.Listed)
			}
			b.ReportMetric(float64(added), "prompt-tokens/turn")
			b.ReportMetric(float64(listed), "listed")
		})
	}
}
