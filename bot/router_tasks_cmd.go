package bot

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/chat"
)

// /pause, /resume and /worklog, and the task's lines in /status
// (docs/tasks.md). A task is its author's: a turn that continues it acts
// for them (docs/architecture.md, Who acts). Who may pause or resume it:
// its author, the person who started the conversation, or an admin; in a
// direct chat, its one person. Anyone else is told so privately.

// Lines of the work log /status and /worklog show.
const (
	statusSteps  = 5
	worklogLines = 30
)

const (
	msgTasksOff     = "Long tasks are off here (tasks.enabled)."
	msgNoTask       = "There is no task here: a task is work I plan with a checklist. /stop stops an answer."
	msgNotYourTask  = "Only the task's author, the person who started this conversation, or an admin can pause or resume it."
	msgNotRunning   = "The task here is not running"
	msgResumeNotNow = "I could not continue the task now: its author's limits or this conversation's queue are full. Try again later."
)

// hereTask is the task of c's conversation; ok is false, with what to
// answer, when there is none.
func (r *Router) hereTask(ctx context.Context, c chat.Command) (sid string, k task.Task, none string, err error) {
	if r.cfg.Tasks == nil {
		return "", task.Task{}, msgTasksOff, nil
	}
	sid, ok, err := r.cfg.Sessions.BoundSession(ctx, c.Thread)
	if err != nil || !ok {
		return "", task.Task{}, msgNoTask, err
	}
	k, ok, err = r.cfg.Tasks.Task(ctx, sid)
	if err != nil || !ok {
		return "", task.Task{}, msgNoTask, err
	}
	return sid, k, "", nil
}

// mayRunTask reports whether c's caller may pause or resume task k of
// session sid.
func (r *Router) mayRunTask(ctx context.Context, c chat.Command, sid string, k task.Task) (bool, error) {
	me := c.User.Key()
	if c.Direct || me == k.Author || r.cfg.Access.IsAdmin(c.User) {
		return true, nil
	}
	starter, ok, err := r.cfg.KV.Get(ctx, StarterKey(sid))
	return ok && starter == me, err
}

// ownTask runs fn with c's task when the caller may control it, and
// answers otherwise.
func (r *Router) ownTask(ctx context.Context, c chat.Command, fn func(sid string, k task.Task) (string, error)) error {
	sid, k, none, err := r.hereTask(ctx, c)
	if err != nil {
		return err
	}
	if none != "" {
		return r.answerPrivately(ctx, c, chat.Out{Text: none})
	}
	ok, err := r.mayRunTask(ctx, c, sid, k)
	if err != nil {
		return err
	}
	if !ok {
		return r.answerPrivately(ctx, c, chat.Out{Text: msgNotYourTask})
	}
	text, err := fn(sid, k)
	if err != nil {
		return err
	}
	return r.answerPrivately(ctx, c, chat.Out{Text: text})
}

// cmdPause pauses the running task after its current step
// (agent.Turn.Pause): it keeps everything, and says so in its answer.
func (r *Router) cmdPause(ctx context.Context, c chat.Command) error {
	return r.ownTask(ctx, c, func(sid string, k task.Task) (string, error) {
		r.mu.Lock()
		st := r.sessions[sid]
		running := st != nil && st.running
		if running {
			st.pause = true
		}
		r.mu.Unlock()
		if !running && k.State != task.Idle && k.State != task.Paused {
			// Its turn may run on another replica (router_remote.go).
			var err error
			if running, err = r.signalElsewhere(ctx, sid, signalPause, c.User); err != nil {
				return "", err
			}
		}
		if !running {
			return fmt.Sprintf("%s (%s).", msgNotRunning, stateWords(k.State)), nil
		}
		r.logTask(ctx, sid, "state", "pause asked by "+c.User.Name)
		return "Pausing the task after its current step. /resume continues it.", nil
	})
}

// cmdResume continues a task that is not running: a turn of its author's,
// as if they had replied "continue".
func (r *Router) cmdResume(ctx context.Context, c chat.Command) error {
	return r.ownTask(ctx, c, func(sid string, k task.Task) (string, error) {
		r.mu.Lock()
		st := r.sessions[sid]
		running := st != nil && st.running
		r.mu.Unlock()
		done, total, open := k.Plan.Counts()
		switch {
		case running:
			return "The task here is running. /pause pauses it after its current step.", nil
		case open == 0:
			return fmt.Sprintf("The task here is finished: %d of %d done.", done, total), nil
		}
		author, err := r.taskAuthor(ctx, sid, k, c.User)
		if err != nil {
			return "", err
		}
		text := "continue"
		if author.Key() != c.User.Key() {
			text = "continue (" + c.User.Name + " resumed the task with /resume)"
		}
		key := "resume:" + c.Key
		if c.Key == "" { // the terminal's commands have no key
			key = fmt.Sprintf("resume:%s:%d", sid, r.cfg.Now().UnixNano())
		}
		r.logTask(ctx, sid, "state", "resumed by "+c.User.Name)
		m := chat.Message{Key: key, Thread: c.Thread, User: author, Text: text, Direct: c.Direct, Mentioned: true}
		queued, err := r.handle(ctx, m)
		if err != nil {
			return "", err
		}
		if !queued {
			return msgResumeNotNow, nil
		}
		return fmt.Sprintf("Continuing the task (%d of %d done).", done, total), nil
	})
}

// taskAuthor is the person task k acts for; by is who asks.
func (r *Router) taskAuthor(ctx context.Context, sid string, k task.Task, by chat.User) (chat.User, error) {
	if k.Author == by.Key() {
		return by, nil
	}
	u := userOf(k.Author)
	name, ok, err := r.cfg.KV.Get(ctx, taskAuthorKey(sid))
	if err != nil {
		return chat.User{}, err
	}
	if ok {
		u.Name = name
	}
	return u, nil
}

// cmdWorklog shows the task's work log, privately.
func (r *Router) cmdWorklog(ctx context.Context, c chat.Command) error {
	sid, k, none, err := r.hereTask(ctx, c)
	if err != nil {
		return err
	}
	if none != "" {
		return r.answerPrivately(ctx, c, chat.Out{Text: none})
	}
	log, err := r.cfg.Tasks.Log(ctx, sid, worklogLines)
	if err != nil {
		return err
	}
	done, total, _ := k.Plan.Counts()
	var b strings.Builder
	fmt.Fprintf(&b, "Work log (the last %d lines; the task is %s, %d of %d done):", worklogLines, stateWords(k.State), done, total)
	writeLog(&b, log, r.zoneOf(ctx, c.User))
	return r.answerPrivately(ctx, c, chat.Out{Text: b.String()})
}

// taskStatus is /status's part on the task of session sid: its state,
// plan and last steps; "" when it has none.
func (r *Router) taskStatus(ctx context.Context, sid string, u chat.User) (string, error) {
	if r.cfg.Tasks == nil {
		return "", nil
	}
	k, ok, err := r.cfg.Tasks.Task(ctx, sid)
	if err != nil || !ok {
		return "", err
	}
	log, err := r.cfg.Tasks.Log(ctx, sid, statusSteps)
	if err != nil {
		return "", err
	}
	done, total, _ := k.Plan.Counts()
	var b strings.Builder
	fmt.Fprintf(&b, "Task: %s, %d of %d done\n%s\nLast steps (/worklog for more):", stateWords(k.State), done, total, k.Plan.Render())
	writeLog(&b, log, r.zoneOf(ctx, u))
	return b.String(), nil
}

// writeLog writes the lines of a work log, one a line, in loc's time.
func writeLog(b *strings.Builder, log []task.Entry, loc *time.Location) {
	if len(log) == 0 {
		b.WriteString("\n(none yet)")
	}
	for _, e := range log {
		fmt.Fprintf(b, "\n%s [%s] %s", e.At.In(loc).Format("Jan 2 15:04"), e.Kind, e.Text)
	}
}

// logTask appends one line to the work log of session sid.
func (r *Router) logTask(ctx context.Context, sid, kind, text string) {
	e := task.Entry{At: r.cfg.Now(), Kind: kind, Text: text}
	if err := r.cfg.Tasks.AppendLog(ctx, sid, e); err != nil {
		r.log.Warn("task: work log", "session", sid, "err", err)
	}
}

// zoneOf is u's time zone where reminders keep one, else UTC.
func (r *Router) zoneOf(ctx context.Context, u chat.User) *time.Location {
	if r.due == nil {
		return time.UTC
	}
	loc, err := r.due.zones.Zone(ctx, u.Key())
	if err != nil {
		return time.UTC
	}
	return loc
}

// stateWords is a task state as people read it.
func stateWords(s task.State) string {
	switch s {
	case task.Running:
		return "running"
	case task.WaitingApproval:
		return "waiting for an approval"
	case task.WaitingHelpers:
		return "waiting for its helpers"
	case task.Paused:
		return "paused"
	default:
		return "idle"
	}
}
