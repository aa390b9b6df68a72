package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// TestReplicasShareALearnedSkill (#30, "three replicas on PostgreSQL"):
// three `parley run` processes share one PostgreSQL database. Ana
// corrects Parley on the replica that receives from Telegram; `parley
// reflect`, a fourth process on the same database, turns the correction
// into a skill while they run; the receiving replica is killed, and the
// replica that takes over — which never saw the skill made — lists it in
// Ana's next turn and reads its steps, from the store.
func TestReplicasShareALearnedSkill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three replicas")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	tg := telegramtest.NewServer()
	t.Cleanup(tg.Close)
	tg.AddUser(tgAna, "Ana", "ana")
	model := llmtest.NewServer()
	t.Cleanup(model.Close)
	platform := []string{
		"PARLEY_TELEGRAM_ENABLED=true",
		"PARLEY_TELEGRAM_TOKEN=" + tg.Token(),
		"PARLEY_TELEGRAM_API_URL=" + tg.URL,
		"PARLEY_ACCESS_TELEGRAM_ALLOW_USERS=" + strconv.FormatInt(tgAna, 10),
	}
	rig := startReplicas(t, ctx, 3, model, append(platform, "PARLEY_EVOLUTION_ENABLED=true")...)
	if err := tg.WaitFor(ctx, tg.Polling); err != nil {
		t.Fatalf("no replica polls: %v\n%s", err, rig.logs)
	}
	says := func(text, answer string, replies ...llmtest.Reply) {
		t.Helper()
		model.Enqueue(replies...)
		tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: text})
		if err := tg.WaitFor(ctx, func() bool {
			for _, m := range tg.BotMessages(tgAna) {
				if m.Visible == answer {
					return true
				}
			}
			return false
		}); err != nil {
			t.Fatalf("%q was never answered %q: %v\n%s", text, answer, err, rig.logs)
		}
	}
	says("deploy the app", "Deployed to prod.", llmtest.Text("Deployed to prod."))
	says(correction, "Sorry, staging first next time.", llmtest.Text("Sorry, staging first next time."))
	learner := leaseHolderPID(t, ctx, rig.url, "receive:telegram")

	// The reflector has a model of its own: a call a replica makes
	// meanwhile must not take the reflection's replies.
	reflModel := llmtest.NewServer()
	t.Cleanup(reflModel.Close)
	reflector := newSandbox(t, "PARLEY_STORE_DRIVER=postgres", "PARLEY_STORE_POSTGRES_URL="+rig.url,
		"PARLEY_EVOLUTION_ENABLED=true").withLLM(reflModel)
	reflModel.Enqueue(
		llmtest.ToolCall("r1", "skill_create", deploySkill),
		llmtest.Text("SAFE"), // the memory guard's judge
		llmtest.ToolCall("r2", "nothing_to_save", `{}`),
	)
	scope := fmt.Sprintf("person:telegram:%d", tgAna)
	if out, errOut, code := reflector.run(t, "", "reflect"); code != 0 || !strings.Contains(out, scope+`: created "Deploy"`) {
		t.Fatalf("reflect: exit %d\n%s\n%s", code, out, errOut)
	}

	rig.kill(t, learner)
	before := len(model.Requests())
	says("deploy again", "Staging first, then prod.",
		llmtest.ToolCall("c1", "skill_read", `{"name":"Deploy"}`), llmtest.Text("Staging first, then prod."))
	if now := leaseHolderPID(t, ctx, rig.url, "receive:telegram"); now == learner {
		t.Fatalf("the killed replica %d still holds the lease", learner)
	}
	reqs := model.Requests()[before:]
	if len(reqs) != 2 {
		t.Fatalf("%d model calls for Ana's turn, want 2 (skill_read, then the answer)", len(reqs))
	}
	if turn := reqs[0].LastUserText(); !strings.Contains(turn, deployIndex) {
		t.Fatalf("the other replica's prompt does not list the skill:\n%s", turn)
	}
	if result := reqs[1].LastText("tool"); !strings.Contains(result, deployStep) {
		t.Fatalf("skill_read on the other replica did not give the steps: %q", result)
	}
}
