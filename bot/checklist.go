package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

// The checklist: a task's plan shown in its thread as one message, posted
// when the plan first appears and edited as it changes — never a message
// per change, and apart from the streamed answer (docs/tasks.md).
//
// One updater per session shows the task as the store has it when its turn
// on the chat's bucket comes: a change that arrives while a call waits
// only marks the session for another look, so a burst of plan updates
// costs one edit, the platform never sees a queue of stale lists, and the
// turn that changed the plan never waits on the platform. The message's
// ref is kept with the task (task.Store.SetChecklist), so after a restart
// the same message is edited, not a second one posted.

// checklists are the sessions' checklist updaters; the router owns one.
type checklists struct {
	tasks task.Store
	out   *outbound.Outbound
	log   *slog.Logger
	ctx   context.Context // the router's base: shutdown ends the updaters
	spawn func(func())    // runs an updater where Router.Wait sees it

	mu   sync.Mutex
	open map[string]*checklist // by session
}

// checklist is one session's updater.
type checklist struct {
	// Owned by checklists.mu.
	thread  chat.Thread // where a new message goes
	replyTo string
	running bool // an updater goroutine is on it
	again   bool // the task changed while it was being shown
	// budget is the turn's step budget after its last step (agent.Event.Budget),
	// zero before one: owned by checklists.mu.
	budget agent.StepBudget
	// shown is what the message shows, "" when not known: owned by the
	// running updater.
	shown string
}

func newChecklists(ctx context.Context, tasks task.Store, out *outbound.Outbound, log *slog.Logger, spawn func(func())) *checklists {
	return &checklists{tasks: tasks, out: out, log: log, ctx: ctx, spawn: spawn, open: map[string]*checklist{}}
}

// show has the checklist of session sid show its task as it is now,
// posting it in t (as a reply to replyTo) when it has no message yet. It
// returns at once.
func (c *checklists) show(sid string, t chat.Thread, replyTo string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, ok := c.open[sid]
	if !ok {
		cl = &checklist{}
		c.open[sid] = cl
	}
	cl.thread, cl.replyTo = t, replyTo
	c.start(sid, cl)
}

// steps records a task's step budget after a step, for the header. A step
// alone edits the message only when the steps left are a multiple of ten
// or five or fewer: a count that moved the message at every step would
// cost the chat an edit a step; in between it rides with plan changes.
func (c *checklists) steps(sid string, b agent.StepBudget) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, ok := c.open[sid]
	if !ok || cl.budget == b {
		return
	}
	cl.budget = b
	if left := b.Left(); left%10 == 0 || left <= 5 {
		c.start(sid, cl)
	}
}

// settle has an open checklist look once more, so that a session whose
// task settled is forgotten. It shows nothing new: a task that went idle
// looks as it did running.
func (c *checklists) settle(sid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.open[sid]; ok {
		c.start(sid, cl)
	}
}

// start runs cl's updater, or has the running one look again. Called
// with c.mu held.
func (c *checklists) start(sid string, cl *checklist) {
	if cl.running {
		cl.again = true
		return
	}
	cl.running = true
	c.spawn(func() { c.run(sid, cl) })
}

// run shows the task until what the message shows is current. A session
// whose task has settled (idle, paused) is forgotten: it costs nothing
// until its next turn.
func (c *checklists) run(sid string, cl *checklist) {
	for {
		c.mu.Lock()
		t, replyTo := cl.thread, cl.replyTo
		cl.again = false
		c.mu.Unlock()
		settled := c.update(sid, cl, t, replyTo)
		c.mu.Lock()
		if cl.again && c.ctx.Err() == nil {
			c.mu.Unlock()
			continue
		}
		cl.running = false
		if settled {
			delete(c.open, sid)
		}
		c.mu.Unlock()
		return
	}
}

// update shows sid's task once, through the one outbound path (paced,
// plain-text fallback), as the store has it when the chat's budget allows
// the call. settled reports that the task is idle or paused. A failed
// call is logged: the next change, or the next turn, tries again.
func (c *checklists) update(sid string, cl *checklist, t chat.Thread, replyTo string) (settled bool) {
	ctx := c.ctx
	k, ok, err := c.tasks.Task(ctx, sid)
	if err != nil || !ok || len(k.Plan.Items) == 0 {
		if err != nil && ctx.Err() == nil {
			c.log.Warn("checklist: read the task", "session", sid, "err", err)
		}
		return !ok || settledTask(k)
	}
	ref, posted := decodeChecklistRef(k.Checklist)
	if posted {
		t = ref.Thread
	}
	a, ok := c.out.Adapter(t.Platform)
	if !ok {
		return true // its platform is not enabled now
	}
	caps := a.Capabilities()
	c.mu.Lock()
	budget := cl.budget
	c.mu.Unlock()
	text := checklistText(k, budget, caps)
	if posted && text == cl.shown {
		return settledTask(k)
	}
	latest := func() chat.Out {
		// What changed while the call waited for its turn goes with it.
		if now, ok, err := c.tasks.Task(ctx, sid); err == nil && ok {
			k, text = now, checklistText(now, budget, caps)
		}
		return chat.Out{Text: text, ReplyTo: replyTo}
	}
	settled = settledTask(k)
	if !posted {
		ref, err = c.out.PostLatest(ctx, t, latest)
		if err != nil {
			c.warn("post", sid, err)
			return settled
		}
		// Saved even as the router shuts down: an unsaved ref would mean
		// a second checklist after the restart.
		if err := c.tasks.SetChecklist(context.WithoutCancel(ctx), sid, encodeChecklistRef(ref)); err != nil {
			c.log.Error("checklist: save its message", "session", sid, "err", err)
		}
	} else if err := c.out.EditLatest(ctx, ref, latest); err != nil {
		cl.shown = "" // the edit may or may not have taken
		c.warn("edit", sid, err)
		return settled
	}
	cl.shown = text
	return settledTask(k)
}

// settledTask reports a task no turn works on now: its checklist's
// updater may forget it.
func settledTask(k task.Task) bool { return k.State == task.Idle || k.State == task.Paused }

func (c *checklists) warn(what, sid string, err error) {
	if c.ctx.Err() == nil {
		c.log.Warn("checklist: "+what, "session", sid, "err", err)
	}
}

// checklistText is the checklist of k: a header with the count, the
// steps its turn has left (b, while it runs) and what holds the task up,
// then one line an item. Past the platform's length, notes go first, then
// the last items, counted.
func checklistText(k task.Task, b agent.StepBudget, caps chat.Capabilities) string {
	done, total, _ := k.Plan.Counts()
	head := fmt.Sprintf("📋 Plan — %d of %d done", done, total)
	if b.Limit > 0 && !settledTask(k) {
		head += fmt.Sprintf(" · %d of %d steps left", b.Left(), b.Limit)
	}
	switch k.State {
	case task.Paused:
		head += " · ⏸ paused (reply continue or /resume)"
	case task.WaitingApproval:
		head += " · waiting for approval"
	}
	text := head + "\n" + k.Plan.Render()
	limit := caps.SplitAt
	if limit <= 0 {
		limit = caps.MaxLen
	}
	if limit <= 0 || caps.Size(text) <= limit {
		return text
	}
	bare := task.Plan{Items: make([]task.Item, len(k.Plan.Items))}
	for i, it := range k.Plan.Items {
		it.Note = ""
		bare.Items[i] = it
	}
	lines := strings.Split(bare.Render(), "\n")
	text = head + "\n" + strings.Join(lines, "\n")
	for n := len(lines) - 1; n > 0 && caps.Size(text) > limit; n-- {
		text = head + "\n" + strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… and %d more (/status)", len(lines)-n)
	}
	if caps.Size(text) > limit {
		text = text[:outbound.FitPrefix(text, limit, caps.Size)] // a platform of tiny messages: what fits
	}
	return text
}

// checklistRef is a checklist's message as the task keeps it.
type checklistRef struct {
	Platform string `json:"p"`
	Space    string `json:"s,omitempty"`
	Chat     string `json:"c"`
	Thread   string `json:"t,omitempty"`
	ID       string `json:"id"`
}

func encodeChecklistRef(ref chat.MessageRef) string {
	t := ref.Thread
	b, _ := json.Marshal(checklistRef{Platform: t.Platform, Space: t.Space, Chat: t.Chat, Thread: t.ID, ID: ref.ID})
	return string(b)
}

// decodeChecklistRef reads a kept ref; ok is false when there is none
// (or it cannot be read, which posts a new checklist).
func decodeChecklistRef(s string) (chat.MessageRef, bool) {
	var r checklistRef
	if s == "" || json.Unmarshal([]byte(s), &r) != nil || r.ID == "" {
		return chat.MessageRef{}, false
	}
	return chat.MessageRef{Thread: chat.Thread{Platform: r.Platform, Space: r.Space, Chat: r.Chat, ID: r.Thread}, ID: r.ID}, true
}
