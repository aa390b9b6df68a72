package bot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// Long tasks through the whole core (bot.NewCore), a real SQLite file and
// the fake platform, in testing/synctest time: the checklist message, the
// task's state and work log, /pause, /resume, budgets and crashes.

// workTool is a step of work: it takes a while, or waits for hold to
// close (or the turn to end), and says it did it.
type workTool struct {
	took time.Duration
	hold chan struct{}
}

func (w *workTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "work", Description: "do one step", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (t *workTool) Name() string { return t.Spec().Name }

func (w *workTool) Execute(ctx context.Context, _ agent.Caller, _ json.RawMessage) (string, error) {
	time.Sleep(w.took)
	if w.hold != nil {
		select {
		case <-w.hold:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return "ok: step done\n(details)", nil
}

// newTaskWorld is the core with long tasks on (a task pauses after steps
// model calls; 0: the default), on a platform that allows one call a
// second per chat and answers 429 past it. boss is an admin.
func newTaskWorld(t *testing.T, work *workTool, steps int) *coreWorld {
	caps := bottest.DefaultCapabilities()
	caps.Ephemeral = true
	w := newCoreWorld(t, bottest.New(bottest.Config{Platform: "slack", Capabilities: caps}))
	w.access = bot.Access{Admins: []string{"slack:boss"}}
	w.tools = []agent.Tool{work}
	w.setup = func(cfg *bot.CoreConfig, db *store.DB) {
		tasks := task.Tasks{Store: db}
		todo, err := tasks.Todo()
		if err != nil {
			t.Fatal(err)
		}
		cfg.Runner.Tools = append(cfg.Runner.Tools, todo)
		cfg.Runner.Plans, cfg.Runner.TaskSteps = tasks, steps
		cfg.Tasks = db
	}
	return w
}

// step is a model response calling tools.
func step(calls ...llm.ToolCall) llm.Response { return llm.Response{ToolCalls: calls} }

func text(s string) llm.Response { return llm.Response{Text: s} }

// todo is a call of the todo tool with items "text:status".
func todo(id string, items ...string) llm.ToolCall {
	var list []task.Item
	for _, it := range items {
		text, status, _ := strings.Cut(it, ":")
		list = append(list, task.Item{Text: text, Status: task.Status(status)})
	}
	args, _ := json.Marshal(task.TodoArgs{Items: list})
	return llm.ToolCall{ID: id, Name: "todo", Arguments: args}
}

func doWork(id string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: "work", Arguments: json.RawMessage(`{}`)}
}

// progress is items with the first done of them done, the next in
// progress, the rest pending, as todo takes them.
func progress(items []string, done int) []string {
	out := make([]string, len(items))
	for i, it := range items {
		switch {
		case i < done:
			out[i] = it + ":done"
		case i == done:
			out[i] = it + ":in_progress"
		default:
			out[i] = it + ":pending"
		}
	}
	return out
}

// checklists are the messages of th that show a plan.
func checklists(w *coreWorld, th chat.Thread) []bottest.Msg {
	var out []bottest.Msg
	for _, m := range w.fake.Messages(th) {
		if strings.HasPrefix(m.Text, "📋 Plan") {
			out = append(out, m)
		}
	}
	return out
}

// settle lets fake time pass until every paced call has had its turn.
func settle() {
	time.Sleep(time.Minute)
	synctest.Wait()
}

// sessionOf is the session of th.
func sessionOf(t *testing.T, w *coreWorld, th chat.Thread) string {
	t.Helper()
	sid, ok, err := w.db.BoundSession(t.Context(), th)
	if err != nil || !ok {
		t.Fatalf("no session for %v: %v", th, err)
	}
	return sid
}

// workLog is the session's work log, a line an entry: "kind: text".
func workLog(t *testing.T, w *coreWorld, sid string) string {
	t.Helper()
	log, err := w.db.Log(t.Context(), sid, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range log {
		lines = append(lines, e.Kind+": "+e.Text)
	}
	return strings.Join(lines, "\n")
}

func stateOf(t *testing.T, w *coreWorld, sid string) task.State {
	t.Helper()
	k, ok, err := w.db.Task(t.Context(), sid)
	if err != nil || !ok {
		t.Fatalf("no task in %s: %v", sid, err)
	}
	return k.State
}

// command runs /name args as user in coreThread and returns what the
// caller was told, privately.
func command(t *testing.T, w *coreWorld, key, user, name string, args ...string) string {
	t.Helper()
	var got []string
	c := chat.Command{Key: key, Thread: coreThread, User: chat.User{Platform: "slack", ID: user, Name: user}, Name: name, Args: args,
		Respond: func(_ context.Context, out chat.Out) error { got = append(got, out.Text); return nil }}
	if err := w.fake.InjectCommand(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	synctest.Wait()
	return strings.Join(got, "\n")
}

// TestChecklistEditedInPlace: a plan of five items, changed six times in
// three and a half seconds, is shown in one checklist message, apart from the
// answer, edited in place to its last state with fewer edits than
// changes, and with no 429 from a platform allowing one call a second.
// The task's state and work log follow it; a turn without a plan leaves
// neither.
func TestChecklistEditedInPlace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Steps slow enough that the checklist is posted while the plan
		// still changes, whichever call the pacer serves first.
		w := newTaskWorld(t, &workTool{took: 700 * time.Millisecond}, 0)
		items := []string{"fetch", "parse", "check", "write", "send"}
		script := []llm.Response{step(doWork("plain")), text("Hi."), step(todo("p0", progress(items, 0)...))}
		for i := range items {
			script = append(script, step(doWork(fmt.Sprint("w", i)), todo(fmt.Sprint("p", i+1), progress(items, i+1)...)))
		}
		script = append(script, text("All five done."), text("Checked: all five hold."))
		w.start(t, script...)
		defer w.stop(t)

		// A plain turn, with a tool, in another thread: no task.
		plain := coreMention("k0", "bo", "say hi")
		plain.Thread.ID = "200.1"
		inject(t, w, plain)
		settle()
		psid := sessionOf(t, w, plain.Thread)
		if _, ok, _ := w.db.Task(t.Context(), psid); ok {
			t.Error("a turn without a plan made a task")
		}
		if log := workLog(t, w, psid); log != "" {
			t.Errorf("a turn without a plan has a work log:\n%s", log)
		}

		inject(t, w, coreMention("k1", "ana", "do the five things"))
		settle()
		lists := checklists(w, coreThread)
		if len(lists) != 1 {
			t.Fatalf("%d checklist messages, want 1: %+v", len(lists), w.fake.Messages(coreThread))
		}
		want := "📋 Plan — 5 of 5 done\n☑ 1. fetch\n☑ 2. parse\n☑ 3. check\n☑ 4. write\n☑ 5. send"
		if got := lists[0]; got.Text != want || got.Edits < 1 || got.Edits >= 6 {
			t.Errorf("the checklist shows %q after %d edits; want %q after 1 to 5 (six changes, coalesced)", got.Text, got.Edits, want)
		}
		for _, c := range w.fake.Sent() {
			if c.Ref == lists[0].Ref && c.Thread != coreThread {
				t.Errorf("the checklist was posted in %v", c.Thread)
			}
		}
		if n := w.fake.RateLimited(); n != 0 {
			t.Errorf("the platform answered 429 %d times", n)
		}
		var answers []bottest.Msg
		for _, m := range w.fake.Messages(coreThread) {
			if strings.Contains(m.Text, "all five") {
				answers = append(answers, m)
			}
		}
		if len(answers) != 1 || answers[0].Text != "Checked: all five hold." || answers[0].Ref == lists[0].Ref {
			t.Errorf("want one final answer apart from the checklist: %+v", answers)
		}
		sid := sessionOf(t, w, coreThread)
		if s := stateOf(t, w, sid); s != task.Idle {
			t.Errorf("state %s after the final answer, want idle", s)
		}
		log := workLog(t, w, sid)
		for _, line := range []string{
			"state: running: task planned in ana's turn",
			"plan: item 1 added: fetch (in_progress)",
			"tool: work {} → ok: step done",
			"plan: item 5 in_progress → done: send",
			"check: check step",
			"state: idle: finished",
		} {
			if !strings.Contains(log, line) {
				t.Errorf("the work log lacks %q:\n%s", line, log)
			}
		}
		if n := strings.Count(log, "tool: "); n != 5 {
			t.Errorf("%d tool lines, want 5 (todo's are the plan lines):\n%s", n, log)
		}
	})
}

// TestBudgetPausesAndResumeContinues: a task whose step budget is spent
// pauses, keeping its state, and says so in the thread and its checklist;
// /resume by its author continues it in a new turn to its final answer,
// with the same checklist message.
func TestBudgetPausesAndResumeContinues(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newTaskWorld(t, &workTool{}, 4)
		w.start(t,
			step(todo("p0", "build:in_progress", "ship:pending")), step(doWork("w1")), step(doWork("w2")), step(doWork("w3")),
			step(todo("p1", "build:done", "ship:done")), text("Built and shipped."), text("Checked: built and shipped."))
		defer w.stop(t)
		inject(t, w, coreMention("k1", "ana", "build and ship"))
		settle()
		sid := sessionOf(t, w, coreThread)
		if n := countText(w, "⏸ Paused after 4 steps: 0 of 2 done — reply *continue* or use /resume."); n != 1 {
			t.Fatalf("the pause is not in the thread once: %+v", w.fake.Messages(coreThread))
		}
		if s := stateOf(t, w, sid); s != task.Paused {
			t.Fatalf("state %s, want paused", s)
		}
		if lists := checklists(w, coreThread); len(lists) != 1 || !strings.Contains(lists[0].Text, "⏸ paused") {
			t.Fatalf("the checklist does not say paused: %+v", lists)
		}
		if n := w.model.calls.Load(); n != 4 {
			t.Fatalf("%d model calls before the pause, want 4", n)
		}
		if got := command(t, w, "c1", "ana", "status"); !strings.Contains(got, "Task: paused, 0 of 2 done\n◐ 1. build (in progress)\n☐ 2. ship") ||
			!strings.Contains(got, "[tool] work {} → ok: step done") {
			t.Errorf("/status: %q", got)
		}

		if got := command(t, w, "c2", "ana", "resume"); got != "Continuing the task (0 of 2 done)." {
			t.Errorf("/resume answered %q", got)
		}
		settle()
		if n := countText(w, "Checked: built and shipped."); n != 1 {
			t.Fatalf("the resumed task's answer is not shown once: %+v", w.fake.Messages(coreThread))
		}
		lists := checklists(w, coreThread)
		if len(lists) != 1 || lists[0].Text != "📋 Plan — 2 of 2 done\n☑ 1. build\n☑ 2. ship" {
			t.Fatalf("after /resume: %+v", lists)
		}
		if s := stateOf(t, w, sid); s != task.Idle {
			t.Errorf("state %s, want idle", s)
		}
		msgs, _ := w.db.Messages(t.Context(), sid)
		if !slices.ContainsFunc(msgs, func(m llm.Message) bool { return m.Role == llm.RoleUser && m.Text == "continue" && m.Author == "ana" }) {
			t.Errorf("the resumed turn is not ana's \"continue\": %+v", msgs)
		}
		if got := command(t, w, "c3", "ana", "resume"); got != "The task here is finished: 2 of 2 done." {
			t.Errorf("/resume of a finished task: %q", got)
		}
		if got := command(t, w, "c4", "ana", "worklog"); !strings.Contains(got, "[state] paused: ⏸ Paused after 4 steps") ||
			!strings.Contains(got, "[state] resumed by ana") || !strings.Contains(got, "[state] idle: finished") {
			t.Errorf("/worklog: %q", got)
		}
		if n := w.fake.RateLimited(); n != 0 {
			t.Errorf("the platform answered 429 %d times", n)
		}
	})
}

// TestTaskAcrossCrash: the process dies while a task's step runs. After
// the restart the recovered turn continues the task — the interrupted
// call is not run again blindly — editing the same checklist message to
// the end, and the thread gets one final answer.
func TestTaskAcrossCrash(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		work := &workTool{hold: make(chan struct{})}
		w := newTaskWorld(t, work, 0)
		w.start(t, step(todo("p0", progress([]string{"a", "b", "c"}, 0)...)),
			step(todo("p1", progress([]string{"a", "b", "c"}, 1)...), doWork("w1")))
		inject(t, w, coreMention("k1", "ana", "do a, b and c"))
		settle() // the step waits in work
		before := checklists(w, coreThread)
		if len(before) != 1 {
			t.Fatalf("%d checklists before the crash, want 1", len(before))
		}
		w.stop(t) // the crash

		w.start(t, step(todo("p2", "a:done", "b:done", "c:done")), text("All done."), text("Checked: a, b and c are done."))
		defer w.stop(t)
		settle()
		lists := checklists(w, coreThread)
		if len(lists) != 1 || lists[0].Ref != before[0].Ref || lists[0].Text != "📋 Plan — 3 of 3 done\n☑ 1. a\n☑ 2. b\n☑ 3. c" {
			t.Fatalf("after the restart, want the same checklist, complete: %+v (before: %+v)", lists, before)
		}
		if n := countText(w, "Checked: a, b and c are done."); n != 1 {
			t.Fatalf("%d final answers, want 1: %+v", n, w.fake.Messages(coreThread))
		}
		if d := w.fake.DuplicateFinals(); len(d) != 0 {
			t.Errorf("duplicates: %+v", d)
		}
		sid := sessionOf(t, w, coreThread)
		msgs, _ := w.db.Messages(t.Context(), sid)
		if !slices.ContainsFunc(msgs, func(m llm.Message) bool { return m.Role == llm.RoleTool && m.ToolCallID == "w1" && m.IsError }) {
			t.Errorf("the interrupted call has no error result: %+v", msgs)
		}
		if s := stateOf(t, w, sid); s != task.Idle {
			t.Errorf("state %s, want idle", s)
		}
		if left, _ := w.db.Unfinished(t.Context()); len(left) != 0 {
			t.Errorf("unfinished after the answer: %+v", left)
		}
		if n := w.fake.RateLimited(); n != 0 {
			t.Errorf("the platform answered 429 %d times", n)
		}
	})
}

// TestTaskControl: in a thread bo started, ana's task may be paused (mid
// step: after it) and resumed by ana, its author, by bo, the thread's
// starter, and by an admin; cy, none of these, is told so privately and
// nothing changes. A task resumed by someone else goes on as ana's turn.
func TestTaskControl(t *testing.T) {
	for _, tt := range []struct {
		cmd, user string
		allowed   bool
	}{
		{"pause", "ana", true},
		{"pause", "bo", true},
		{"pause", "boss", true},
		{"pause", "cy", false},
		{"resume", "ana", true},
		{"resume", "bo", true},
		{"resume", "boss", true},
		{"resume", "cy", false},
	} {
		t.Run(tt.cmd+" by "+tt.user, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				work, steps := &workTool{hold: make(chan struct{})}, 0
				if tt.cmd == "resume" {
					work, steps = &workTool{}, 2 // ana's task pauses on its budget
				}
				w := newTaskWorld(t, work, steps)
				w.start(t, text("Hi."), step(todo("p0", "one:in_progress")), step(doWork("w1")), text("Finished."))
				defer w.stop(t)
				inject(t, w, coreMention("k0", "bo", "hello"))
				settle()
				inject(t, w, coreMention("k1", "ana", "do the one thing"))
				settle()
				sid := sessionOf(t, w, coreThread)

				got := command(t, w, "c1", tt.user, tt.cmd)
				if tt.cmd == "pause" {
					close(work.hold)
				}
				settle()
				if refused := got == "Only the task's author, the person who started this conversation, or an admin can pause or resume it."; refused == tt.allowed {
					t.Fatalf("/%s by %s answered %q", tt.cmd, tt.user, got)
				}
				state, calls := stateOf(t, w, sid), w.model.calls.Load()
				switch {
				case tt.cmd == "pause" && tt.allowed:
					if state != task.Paused || calls != 3 || countText(w, "⏸ Paused as asked: 0 of 1 done") != 1 {
						t.Errorf("not paused after the step: state %s, %d model calls", state, calls)
					}
				case tt.cmd == "pause":
					if state != task.Idle || countText(w, "Finished.") != 1 {
						t.Errorf("a refused /pause paused: state %s", state)
					}
				case tt.allowed:
					msgs, _ := w.db.Messages(t.Context(), sid)
					last := msgs[len(msgs)-2]
					if state != task.Idle || countText(w, "Finished.") != 1 || last.Author != "ana" || !strings.HasPrefix(last.Text, "continue") {
						t.Errorf("not continued as ana's turn: state %s, %+v", state, last)
					}
					if tt.user != "ana" && !strings.Contains(last.Text, tt.user+" resumed the task") {
						t.Errorf("the turn does not say who resumed it: %q", last.Text)
					}
				default:
					if state != task.Paused || calls != 3 {
						t.Errorf("a refused /resume continued: state %s, %d model calls", state, calls)
					}
				}
			})
		})
	}
}

// TestTaskCommandsWithoutTask: /pause, /resume and /worklog where there is
// no task say so, and /pause of a task not running says that.
func TestTaskCommandsWithoutTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newTaskWorld(t, &workTool{}, 0)
		w.start(t, text("Hi."), step(todo("p0", "one:done")), text("Done."), text("Checked."))
		defer w.stop(t)
		for _, name := range []string{"pause", "resume", "worklog"} {
			if got := command(t, w, "n"+name, "ana", name); !strings.HasPrefix(got, "There is no task here") {
				t.Errorf("/%s with no conversation: %q", name, got)
			}
		}
		inject(t, w, coreMention("k0", "ana", "hello"))
		settle()
		if got := command(t, w, "c0", "ana", "worklog"); !strings.HasPrefix(got, "There is no task here") {
			t.Errorf("/worklog without a plan: %q", got)
		}
		inject(t, w, coreMention("k1", "ana", "do it"))
		settle()
		if got := command(t, w, "c1", "ana", "pause"); got != "The task here is not running (idle)." {
			t.Errorf("/pause of an idle task: %q", got)
		}
	})
}

// TestTaskSettledOnRedelivery: the process dies after a task's turn had
// its answer (final, or a pause) but before the router saw it, the task
// still running. After the restart the answer is only delivered, and the
// task is settled by what the answer was, without asking the model.
func TestTaskSettledOnRedelivery(t *testing.T) {
	for _, tt := range []struct {
		name, answer string
		want         task.State
	}{
		{"finished", "Did the one thing.", task.Idle},
		{"paused", "⏸ Paused after 2 steps: 0 of 1 done — reply *continue* or use /resume.", task.Paused},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newTaskWorld(t, &workTool{hold: make(chan struct{})}, 0)
				w.start(t, step(todo("p0", "one:in_progress")), step(doWork("w1")))
				inject(t, w, coreMention("k1", "ana", "do the one thing"))
				settle()
				sid := sessionOf(t, w, coreThread)
				w.stop(t)
				// The model's answer made it into the transcript; nothing
				// after it happened.
				db, err := store.Open(t.Context(), w.path)
				if err != nil {
					t.Fatal(err)
				}
				if err := db.AppendMessages(t.Context(), sid, llm.Message{Role: llm.RoleAssistant, Text: tt.answer}); err != nil {
					t.Fatal(err)
				}
				db.Close()

				w.start(t, text("unused"))
				defer w.stop(t)
				settle()
				if n := w.model.calls.Load(); n != 0 {
					t.Errorf("the model was asked %d times", n)
				}
				if n := countText(w, tt.answer); n != 1 {
					t.Errorf("the answer is shown %d times, want once", n)
				}
				if s := stateOf(t, w, sid); s != tt.want {
					t.Errorf("state %s, want %s", s, tt.want)
				}
				if n := len(checklists(w, coreThread)); n != 1 {
					t.Errorf("%d checklists, want 1", n)
				}
			})
		})
	}
}

// TestTaskWaitsForApproval: while a task's step waits for an approval its
// state and checklist say so; the decision sets it running again, and the
// work log keeps both.
func TestTaskWaitsForApproval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newTaskWorld(t, &workTool{}, 0)
		deploy := llm.ToolCall{ID: "d1", Name: "deploy", Arguments: json.RawMessage(`{}`)}
		w.start(t, step(todo("p0", "deploy:in_progress")), step(deploy),
			step(todo("p1", "deploy:done")), text("Deployed."), text("Checked: deployed."))
		defer w.stop(t)
		inject(t, w, coreMention("k1", "ana", "deploy"))
		settle()
		sid := sessionOf(t, w, coreThread)
		if s := stateOf(t, w, sid); s != task.WaitingApproval {
			t.Fatalf("state %s while the approval waits", s)
		}
		if lists := checklists(w, coreThread); len(lists) != 1 || !strings.HasPrefix(lists[0].Text, "📋 Plan — 0 of 1 done · waiting for approval\n") {
			t.Fatalf("the checklist while the approval waits: %+v", lists)
		}
		prompt := w.approvalPrompt(t, coreThread)
		click := chat.Action{Key: "click1", Thread: coreThread, User: chat.User{Platform: "slack", ID: "ana", Name: "ana"},
			Data: prompt.Buttons[0].Data, Message: prompt.Ref}
		if err := w.fake.InjectAction(t.Context(), click); err != nil {
			t.Fatal(err)
		}
		settle()
		if lists := checklists(w, coreThread); len(lists) != 1 || lists[0].Text != "📋 Plan — 1 of 1 done\n☑ 1. deploy" {
			t.Fatalf("the checklist after the decision: %+v", lists)
		}
		if s := stateOf(t, w, sid); s != task.Idle {
			t.Errorf("state %s after the answer", s)
		}
		log := workLog(t, w, sid)
		for _, line := range []string{"state: waiting_approval: waiting for approval of deploy", "state: running: approved by ana", "tool: deploy {} → deployed"} {
			if !strings.Contains(log, line) {
				t.Errorf("the work log lacks %q:\n%s", line, log)
			}
		}
		if n := w.fake.RateLimited(); n != 0 {
			t.Errorf("the platform answered 429 %d times", n)
		}
	})
}
