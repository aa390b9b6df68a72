package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/store"
)

// TestLearnFromACorrection, with the real binary at the terminal: Ana
// corrects Parley; `parley reflect` turns the correction into a skill file
// (the memory guard's judge vets it); the next turn's system prompt lists
// the skill, the model reads it, and `parley skills ls` shows the rates
// moved.
func TestLearnFromACorrection(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	sb := newSandbox(t).withLLM(srv)

	srv.Enqueue(llmtest.Text("Deployed to prod."), llmtest.Text("Sorry — staging first next time."))
	out, errOut, code := sb.run(t, "deploy the app\nwrong, always deploy to staging first\n/quit\n", "chat")
	if code != 0 {
		t.Fatalf("chat: exit %d\n%s\n%s", code, out, errOut)
	}

	srv.Enqueue(
		llmtest.ToolCall("r1", "skill_create", `{"name":"Deploy","description":"when asked to deploy: staging first","steps":"1. Deploy to staging.\n2. Check it, then prod."}`),
		llmtest.Text("SAFE"), // the memory guard's judge
		llmtest.ToolCall("r2", "nothing_to_save", `{}`),
	)
	out, errOut, code = sb.run(t, "", "reflect")
	if code != 0 || !strings.Contains(out, `person:console:ana: created "Deploy"`) {
		t.Fatalf("reflect: exit %d\n%s\n%s", code, out, errOut)
	}
	packet := srv.Requests()[2].LastUserText()
	if !strings.Contains(packet, "CORRECTED") || !strings.Contains(packet, "wrong, always deploy to staging first") {
		t.Fatalf("the packet lacks the correction:\n%s", packet)
	}
	if s := storedSkill(t, openedStore(t, filepath.Join(sb.dir, "data", "parley.db")), "person:console:ana", "Deploy"); s.PatchCount != 0 || !strings.Contains(s.Body, "1. Deploy to staging.") {
		t.Fatalf("the skill in the store: %+v", s)
	}
	checkReflectionKept(t, filepath.Join(sb.dir, "data", "parley.db"), "person:console:ana")
	// Nothing new since: a second cycle makes no model call.
	before := len(srv.Requests())
	if out, _, _ = sb.run(t, "", "reflect"); !strings.Contains(out, "nothing to reflect on") || len(srv.Requests()) != before {
		t.Fatalf("second reflect:\n%s", out)
	}

	srv.Enqueue(llmtest.ToolCall("c1", "skill_read", `{"name":"Deploy"}`), llmtest.Text("Staging first, then prod."))
	out, errOut, code = sb.run(t, "/new\ndeploy again\n/quit\n", "chat")
	if code != 0 || !strings.Contains(out, "Staging first, then prod.") {
		t.Fatalf("chat after reflecting: exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if first := string(reqs[len(reqs)-2].Body); !strings.Contains(first, "Deploy: when asked to deploy: staging first") {
		t.Fatalf("the skill is not in the next turn's prompt:\n%s", first)
	}
	if second := string(reqs[len(reqs)-1].Body); !strings.Contains(second, "1. Deploy to staging.") {
		t.Fatalf("skill_read did not return the steps:\n%s", second)
	}
	out, _, _ = sb.run(t, "", "skills", "ls")
	if !strings.Contains(out, "person:console:ana") || !strings.Contains(out, "Deploy") || !strings.Contains(out, "100%") {
		t.Fatalf("skills ls:\n%s", out)
	}
}

// TestReflectionModel: evolution.model names another provider's model,
// and reflection asks it, not the chat's.
func TestReflectionModel(t *testing.T) {
	chat, reflector := llmtest.NewServer(), llmtest.NewServer()
	defer chat.Close()
	defer reflector.Close()
	sb := newSandbox(t,
		"PARLEY_MEMORY_GUARD_MODEL=off",
		fmt.Sprintf(`PARLEY_PROVIDERS={"cheap": {"kind": "openai", "base_url": %q}}`, reflector.OpenAIBaseURL()),
		"PARLEY_EVOLUTION_MODEL=cheap/tiny-1",
	).withLLM(chat)

	chat.Enqueue(llmtest.Text("Deployed to prod."))
	if out, errOut, code := sb.run(t, "deploy the app\n/quit\n", "chat"); code != 0 {
		t.Fatalf("chat: exit %d\n%s\n%s", code, out, errOut)
	}
	reflector.Enqueue(llmtest.ToolCall("r1", "nothing_to_save", `{}`))
	if out, errOut, code := sb.run(t, "", "reflect", "--force"); code != 0 {
		t.Fatalf("reflect: exit %d\n%s\n%s", code, out, errOut)
	}
	if n := len(chat.Requests()); n != 1 {
		t.Errorf("the chat's model saw %d requests, want 1: the turn alone", n)
	}
	reqs := reflector.Requests()
	if len(reqs) != 1 || reqs[0].JSON["model"] != "tiny-1" || !strings.Contains(reqs[0].LastUserText(), "deploy the app") {
		t.Fatalf("the reflection model saw %d requests; want the packet, asked of tiny-1: %+v", len(reqs), reqs)
	}
}

// checkReflectionKept: the one reflection of scope is kept with its cost
// (reflection_log), its model calls — the judge's among them — are in the
// costs table as the agent "reflection", and the skill it created is in
// the audit log by "reflection".
// openedStore opens the SQLite store at path for a look, closed when the
// test ends.
func openedStore(t *testing.T, path string) *store.DB {
	t.Helper()
	db, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// storedSkill is scope's skill name as the store holds it.
func storedSkill(t *testing.T, db evolve.SkillStore, scope, name string) evolve.Skill {
	t.Helper()
	s, err := evolve.Skills{Store: db}.Get(t.Context(), scope, name)
	if err != nil {
		t.Fatalf("the skill %q of %s in the store: %v", name, scope, err)
	}
	return s
}

func checkReflectionKept(t *testing.T, path, scope string) {
	t.Helper()
	db, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	recs, err := db.Reflections(t.Context(), 10)
	if err != nil || len(recs) != 1 {
		t.Fatalf("reflections kept: %+v, %v", recs, err)
	}
	r := recs[0]
	// Two reflection calls and the judge's; llmtest's model has no price.
	if r.Scope != scope || r.Changes != 1 || r.Calls != 2 || r.Tokens == 0 || r.Unpriced != 3 || r.Nanos != 0 || r.Err != "" {
		t.Errorf("the reflection's record: %+v", r)
	}
	sum, err := db.SumCosts(t.Context(), bot.CostFilter{Agent: "reflection"})
	if err != nil || sum.Calls != 3 || sum.Unpriced != 3 {
		t.Errorf("reflection's costs: %+v, %v", sum, err)
	}
	entries, err := db.AuditEntries(t.Context(), bot.AuditFilter{Action: "skill."}, 10)
	if err != nil || len(entries) != 1 {
		t.Fatalf("audited: %+v, %v", entries, err)
	}
	if e := entries[0]; e.Actor != "reflection" || e.Action != "skill.create" || e.Target != scope || e.Detail != "Deploy" || e.Via != "reflection" {
		t.Errorf("the audit entry: %+v", e)
	}
}
