package bot

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

// The timekeeper is what the chat core does when a reminder or a schedule
// falls due (agent/remind's Loop claims it, once per occurrence, and hands
// it here at least once):
//
//   - a reminder is a message from Parley, never an inbound message: it is
//     posted in its thread through paced delivery, mentioning (pinging)
//     the reminded people and no one else, and recorded in the outbox
//     under the claim's key, so a claim handed over again after a crash is
//     not posted twice. No model decides whether it goes out;
//   - a schedule's occurrence starts a turn for its owner — their
//     identity, memory and permissions — recorded in the inbox under the
//     claim's key, so it runs once and a crash mid-turn resumes it as any
//     turn resumes. An occurrence that falls due while the previous run
//     still goes is skipped, and the running answer says so; three failed
//     runs in a row pause the schedule and tell its owner;
//   - an occurrence missed by more than the grace period is reported once,
//     never replayed.

// RemindersConfig is what the router's timekeeper needs beside the
// router: the reminders, the outbox a reminder is recorded in (so it shows
// once), each person's zone, and the loop's Wake (remind.Loop.Wake).
type RemindersConfig struct {
	Items  remind.ItemStore
	Outbox outbound.Outbox
	Zones  Zones
	Wake   func()
}

// timekeeper delivers due items; the router owns one.
type timekeeper struct {
	items    remind.ItemStore
	sessions SessionMap
	outbox   outbound.Outbox
	out      *outbound.Outbound
	router   *Router
	zones    Zones
	// wake tells the loop an item's next time moved (remind.Loop.Wake).
	wake func()
	now  func() time.Time
	log  *slog.Logger

	mu      sync.Mutex
	running map[int64]*scheduledRun // by item: the schedule runs going now
}

// scheduledRun is one schedule's run in progress.
type scheduledRun struct {
	key     string
	skipped []time.Time // occurrences that fell due meanwhile
}

// Deliver delivers one claim (remind.Loop.Deliver).
func (k *timekeeper) Deliver(ctx context.Context, c remind.Claim) error {
	it := c.Item
	switch {
	case it.Kind == remind.KindSchedule && c.Decision.Missed:
		text := fmt.Sprintf("⏰ I missed a scheduled run (due %s; I was not running): %s", k.when(it, c.Occurrence), it.Text)
		if next := k.nextRun(ctx, it); next != "" {
			text += "\nIt runs again " + next + "."
		}
		return k.post(ctx, c.Key(), it, text, []chat.User{ownerOf(it)})
	case it.Kind == remind.KindSchedule:
		return k.startRun(ctx, c)
	}
	text := "⏰ " + it.Text
	switch {
	case c.Decision.Missed:
		text = fmt.Sprintf("⏰ Missed reminder (due %s; I was not running): %s", k.when(it, c.Occurrence), it.Text)
	case c.Decision.Late > 0:
		text += fmt.Sprintf("\n_(late by %s: I was not running at %s)_", c.Decision.Late.Round(time.Minute), k.when(it, c.Occurrence))
	}
	var targets []chat.User
	for _, key := range it.Targets {
		u := userOf(key)
		if key == it.Owner {
			u = ownerOf(it) // by name too: Telegram shows a text mention as the name
		}
		// Checked again: someone who left the place since, or lost
		// access, is not pinged back into it.
		if err := k.router.mayCall(ctx, threadOf(it.Place), u, it.Place.Direct, key == it.Owner); err != nil {
			k.log.Info("reminder does not call someone", "item", it.ID, "user", key, "why", err)
			continue
		}
		targets = append(targets, u)
	}
	if err := k.post(ctx, c.Key(), it, text, targets); err != nil {
		return err
	}
	k.router.reminderShown(ctx, threadOf(it.Place), it.Owner, it.Text)
	return nil
}

// postTimeout bounds a reminder's post, which a shutdown does not cancel.
const postTimeout = 30 * time.Second

// post shows text in it's place once under key: a record already
// delivered is not posted again.
func (k *timekeeper) post(ctx context.Context, key string, it remind.Item, text string, mentions []chat.User) error {
	rec, ok, err := k.outbox.Reply(ctx, key)
	if err != nil {
		return err
	}
	if ok && rec.Status == outbound.ReplyDelivered {
		return nil // posted before a crash kept the claim from being marked
	}
	t := threadOf(it.Place)
	sid, err := k.sessions.SessionFor(ctx, t)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err // stopping: not begun, so not half done
	}
	// Not cancelled with ctx, like a reply's calls (ReplyWriter.callCtx):
	// a post abandoned half way at shutdown can be shown without the
	// outbox knowing it, and would be shown again after the restart.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), postTimeout)
	defer cancel()
	ref, err := k.out.Post(pctx, t, chat.Out{Text: text, Mentions: mentions})
	if err != nil {
		return fmt.Errorf("post %s: %w", key, err)
	}
	return k.outbox.SaveReply(context.WithoutCancel(ctx), outbound.OutboxRecord{InboxKey: key, SessionID: sid, Thread: t,
		Refs: []string{ref.ID}, Text: text, Status: outbound.ReplyDelivered})
}

// startRun starts the turn of a schedule's occurrence, unless its previous
// run still goes.
func (k *timekeeper) startRun(ctx context.Context, c remind.Claim) error {
	it := c.Item
	k.mu.Lock()
	if r, ok := k.running[it.ID]; ok {
		r.skipped = append(r.skipped, c.Occurrence)
		k.mu.Unlock()
		k.log.Warn("schedule: skipped an occurrence, the previous run still goes", "item", it.ID, "due", c.Occurrence)
		return nil
	}
	k.running[it.ID] = &scheduledRun{key: c.Key()}
	k.mu.Unlock()
	m := chat.Message{
		Key: c.Key(), Thread: threadOf(it.Place), User: ownerOf(it), Direct: it.Place.Direct, Mentioned: true,
		Text: fmt.Sprintf("(Scheduled run, due %s, set by %s — /schedules lists it.) %s", k.when(it, c.Occurrence), ownerOf(it).Name, it.Text),
	}
	queued, err := k.router.handle(ctx, m)
	if err != nil || !queued {
		// Not started by this call: refused, or started before (a claim
		// handed over again), in which case recovery runs it.
		k.mu.Lock()
		delete(k.running, it.ID)
		k.mu.Unlock()
	}
	return err
}

// wrap gives a scheduled run's reply the note of the occurrences skipped
// while it ran.
func (k *timekeeper) wrap(key string, r outbound.Reply) outbound.Reply {
	id, ok := itemOfKey(key)
	if !ok {
		return r
	}
	return &scheduledReply{Reply: r, skipped: func() []time.Time {
		k.mu.Lock()
		defer k.mu.Unlock()
		if run, ok := k.running[id]; ok && run.key == key {
			return append([]time.Time(nil), run.skipped...)
		}
		return nil
	}}
}

// scheduledReply is a scheduled run's reply.
type scheduledReply struct {
	outbound.Reply
	skipped func() []time.Time
}

func (s *scheduledReply) Finish(ctx context.Context, final string) error {
	if n := len(s.skipped()); n > 0 {
		final += fmt.Sprintf("\n\n_Skipped %d later run(s) of this schedule that fell due while this one was still going._", n)
	}
	return s.Reply.Finish(ctx, final)
}

// ended records how a scheduled run ended: a third failure in a row
// pauses the schedule, and its owner is told.
func (k *timekeeper) ended(ctx context.Context, key, answer string, runErr error) {
	id, ok := itemOfKey(key)
	if !ok {
		return
	}
	k.mu.Lock()
	if run, ok := k.running[id]; ok && run.key == key {
		delete(k.running, id)
	}
	k.mu.Unlock()
	result := firstLine(strings.TrimSpace(answer))
	if runErr != nil {
		result = "failed: " + runErr.Error()
	}
	if r := []rune(result); len(r) > 200 {
		result = string(r[:200]) + "…"
	}
	ctx = context.WithoutCancel(ctx)
	paused, err := k.items.RecordItemRun(ctx, id, runErr == nil, result, k.now())
	if err != nil {
		k.log.Error("schedule: record run", "item", id, "err", err)
		return
	}
	if !paused {
		return
	}
	it, err := k.items.Item(ctx, id)
	if err != nil {
		k.log.Error("schedule: read paused item", "item", id, "err", err)
		return
	}
	text := fmt.Sprintf("⏸ I paused the schedule %q: its last %d runs failed (last: %s). /schedules resume to try again.",
		it.Text, remind.MaxFailures, result)
	if err := k.post(ctx, key+":paused", it, text, []chat.User{ownerOf(it)}); err != nil {
		k.log.Error("schedule: tell the owner it paused", "item", id, "err", err)
	}
}

// when is t in the item's zone, as people read it ("Thu 26 Nov 09:00 CET").
func (k *timekeeper) when(it remind.Item, t time.Time) string { return inZone(it, t) }

// nextRun is when a schedule runs next, in its zone; "" when never.
func (k *timekeeper) nextRun(ctx context.Context, it remind.Item) string {
	fresh, err := k.items.Item(ctx, it.ID)
	if err != nil || fresh.Status != remind.StatusActive {
		return ""
	}
	return inZone(fresh, fresh.Next)
}

// inZone is t in it's zone, as people read it.
func inZone(it remind.Item, t time.Time) string {
	if loc, err := it.Location(); err == nil {
		t = t.In(loc)
	}
	return t.Format("Mon 2 Jan 15:04 MST")
}

// itemOfKey reads the item id of a claim's key ("remind:<id>:<ms>").
func itemOfKey(key string) (int64, bool) {
	rest, ok := strings.CutPrefix(key, "remind:")
	if !ok {
		return 0, false
	}
	idText, _, _ := strings.Cut(rest, ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	return id, err == nil
}

// threadOf is the thread an item is delivered in.
func threadOf(p remind.Place) chat.Thread {
	return chat.Thread{Platform: p.Platform, Space: p.Space, Chat: p.Chat, ID: p.Thread}
}

// ownerOf is the person an item acts for.
func ownerOf(it remind.Item) chat.User {
	u := userOf(it.Owner)
	u.Name = it.OwnerName
	return u
}

// userOf is the person of a user key: "slack:U1", or "telegram:@carol"
// for a Telegram username not resolved to an id.
func userOf(key string) chat.User {
	u, _ := chat.ParseUserKey(key)
	if name, ok := strings.CutPrefix(u.ID, "@"); ok {
		return chat.User{Platform: u.Platform, Name: name}
	}
	return u
}
