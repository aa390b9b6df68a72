package bot_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// Reminders and schedules through the whole core (bot.NewCore), a real
// SQLite file and the fake platform, in testing/synctest time: the bubble
// starts on Sat 1 Jan 2000 00:00 UTC, 01:00 in Berlin, everyone's zone.

// withReminders turns reminders on in a core under test: the remind and
// schedule tools, Berlin for everyone, and the loop.
func withReminders(t *testing.T, cfg *bot.CoreConfig, db *store.DB) {
	t.Helper()
	berlin, err := bot.LoadZone("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	zones := bot.Zones{KV: db, Default: berlin}
	loop := &remind.Loop{Store: db, MaxSleep: 24 * time.Hour}
	tools, err := remind.Tools(remind.ToolConfig{Items: db, Zones: zones, Wake: loop.Wake})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Runner.Tools = append(cfg.Runner.Tools, tools...)
	cfg.Reminders, cfg.ReminderLoop, cfg.Zones = db, loop, zones
}

func newTimeWorld(t *testing.T) *coreWorld {
	w := newCoreWorld(t, bottest.New(bottest.Config{Platform: "slack", Capabilities: chat.Capabilities{MaxLen: 4000, Ephemeral: true}}))
	w.reminders = true
	w.access = bot.Access{Admins: []string{"slack:boss"}}
	return w
}

// remindCall is the model asking for a reminder, then confirming it.
func remindCall(args string) []llm.Response {
	return []llm.Response{
		{ToolCalls: []llm.ToolCall{{ID: "r1", Name: "remind", Arguments: []byte(args)}}},
		{Text: "Noted."},
	}
}

// reminders are the messages the bot posted that read as reminders.
func reminders(w *coreWorld, text string) []bottest.Call {
	var out []bottest.Call
	for _, c := range w.fake.Sent() {
		if c.Err == nil && strings.HasPrefix(c.Out.Text, "⏰") && strings.Contains(c.Out.Text, text) {
			out = append(out, c)
		}
	}
	return out
}

// TestReminderAcrossRestarts: a reminder set in a thread is posted in that
// thread, mentioning (pinging) the person and no one else, after Parley
// was down at the time (late, within the grace, with a note); a claim
// posted but never marked delivered (a crash in between) is not posted
// again; one whose post failed before a crash is posted once after it.
func TestReminderAcrossRestarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newTimeWorld(t)
		w.start(t, remindCall(`{"text":"send the report","in":"2h"}`)...)
		if err := w.fake.InjectMessage(t.Context(), coreMention("k1", "ana", "remind me in 2 hours to send the report")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		sid, _, _ := w.db.BoundSession(t.Context(), coreThread)
		msgs, _ := w.db.Messages(t.Context(), sid)
		if !slices.ContainsFunc(msgs, func(m llm.Message) bool {
			return m.Role == llm.RoleTool && strings.Contains(m.Text, "I'll remind you Sat 1 Jan 2000 03:00 CET")
		}) {
			t.Fatalf("the confirmation does not state the time in Berlin: %+v", msgs)
		}
		w.stop(t) // down at the due time

		time.Sleep(2*time.Hour + 10*time.Minute)
		w.start(t, llm.Response{Text: "unused"})
		synctest.Wait()
		got := reminders(w, "send the report")
		if len(got) != 1 {
			t.Fatalf("%d reminders posted, want 1: %+v", len(got), w.fake.Sent())
		}
		r := got[0]
		if r.Thread != coreThread || !strings.Contains(r.Out.Text, "late by 10m") ||
			!slices.Equal(r.Out.Mentions, []chat.User{{Platform: "slack", ID: "ana", Name: "ana"}}) {
			t.Fatalf("the reminder: %+v", r)
		}
		if n := w.model.calls.Load(); n != 0 {
			t.Fatalf("a model was asked %d times about a reminder", n)
		}
		w.stop(t)

		// Posted, and the process died before marking it: handed over
		// again at the next start, and not posted twice.
		raw, err := sql.Open("sqlite3", w.path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Exec(`UPDATE reminder_claims SET delivered_at = NULL`); err != nil {
			t.Fatal(err)
		}
		raw.Close()
		w.start(t, remindCall(`{"text":"water the plants","in":"1h"}`)...)
		synctest.Wait()
		if got := reminders(w, "send the report"); len(got) != 1 {
			t.Fatalf("posted again after the crash: %d", len(got))
		}

		// The post fails (a 5xx), then the process dies: the claim stays
		// and is posted once after the restart.
		if err := w.fake.InjectMessage(t.Context(), coreMention("k2", "ana", "and remind me in an hour to water the plants")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		w.fake.FailNext(bottest.OpSend, 1, bottest.ErrServer)
		time.Sleep(time.Hour)
		synctest.Wait()
		if got := reminders(w, "water the plants"); len(got) != 0 {
			t.Fatalf("posted despite the failure: %+v", got)
		}
		w.stop(t)
		w.start(t, llm.Response{Text: "unused"})
		defer w.stop(t)
		synctest.Wait()
		if got := reminders(w, "water the plants"); len(got) != 1 || strings.Contains(got[0].Out.Text, "late") {
			t.Fatalf("after the failed post and a restart: %+v", got)
		}
	})
}

// TestMissedReminder: an occurrence missed by more than the grace period
// is reported once as missed, not replayed; the recurrence goes on from
// its next occurrence, on time, in the zone it was set in.
func TestMissedReminder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newTimeWorld(t)
		w.start(t, remindCall(`{"text":"standup","cron":"0 9 * * *"}`)...)
		if err := w.fake.InjectMessage(t.Context(), coreMention("k1", "ana", "remind me every day at 9 about standup")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		w.stop(t)
		time.Sleep(11 * time.Hour) // 12:00 Berlin: three hours late, the grace is one
		w.start(t, llm.Response{Text: "unused"})
		defer w.stop(t)
		synctest.Wait()
		got := reminders(w, "standup")
		if len(got) != 1 || !strings.Contains(got[0].Out.Text, "Missed reminder (due Sat 1 Jan 09:00 CET") {
			t.Fatalf("missed: %+v", got)
		}
		items, _ := w.db.Items(t.Context(), "space:slack:W", "slack:ana")
		if len(items) != 1 || !items[0].Next.Equal(time.Date(2000, 1, 2, 8, 0, 0, 0, time.UTC)) {
			t.Fatalf("the recurrence did not move on to tomorrow 09:00 CET: %+v", items)
		}
		time.Sleep(21 * time.Hour) // Sun 2 Jan 09:00 Berlin
		synctest.Wait()
		got = reminders(w, "standup")
		if len(got) != 2 || got[1].Out.Text != "⏰ standup" {
			t.Fatalf("the next day's reminder: %+v", got)
		}
	})
}

// scheduledModel answers Ana's request with a schedule tool call, and
// each scheduled run with a summary — held until released, or failing.
type scheduledModel struct {
	args    string
	mu      sync.Mutex
	hold    chan struct{} // a run waits for it to close; nil: no wait
	failing bool
	runs    int
}

func (m *scheduledModel) Stream(ctx context.Context, r llm.Request) iter.Seq2[llm.Event, error] {
	last := r.Messages[len(r.Messages)-1]
	m.mu.Lock()
	hold, failing := m.hold, m.failing
	scheduled := last.Role == llm.RoleUser && strings.Contains(last.Text, "(Scheduled run")
	if scheduled {
		m.runs++
	}
	m.mu.Unlock()
	return func(yield func(llm.Event, error) bool) {
		switch {
		case scheduled && failing:
			yield(llm.Event{}, errors.New("the model refused"))
		case scheduled:
			if hold != nil {
				select {
				case <-hold:
				case <-ctx.Done():
					yield(llm.Event{}, ctx.Err())
					return
				}
			}
			yield(llm.Event{Kind: llm.EventDone, Response: &llm.Response{Text: "Summary: all quiet."}}, nil)
		case last.Role == llm.RoleTool:
			yield(llm.Event{Kind: llm.EventDone, Response: &llm.Response{Text: "Scheduled."}}, nil)
		default:
			yield(llm.Event{Kind: llm.EventDone, Response: &llm.Response{
				ToolCalls: []llm.ToolCall{{ID: "s1", Name: "schedule", Arguments: []byte(m.args)}}}}, nil)
		}
	}
}

func (m *scheduledModel) set(f func(m *scheduledModel)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f(m)
}

// TestScheduledRuns: a schedule runs as a turn of its creator's at each
// due time and answers in its thread; an occurrence due while the last
// run still goes is skipped and the run's answer says so; three failed
// runs in a row pause it and tell its creator; a paused schedule does
// not run.
func TestScheduledRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newTimeWorld(t)
		model := &scheduledModel{args: `{"instruction":"summarise the channel","cron":"*/10 * * * *"}`, hold: make(chan struct{})}
		w.provider = model
		w.start(t)
		defer w.stop(t)
		if err := w.fake.InjectMessage(t.Context(), coreMention("k1", "ana", "every 10 minutes, summarise the channel")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		time.Sleep(10 * time.Minute) // 00:10: the first run starts, and hangs
		synctest.Wait()
		time.Sleep(10 * time.Minute) // 00:20: due again while it runs
		synctest.Wait()
		close(model.hold)
		synctest.Wait()
		var answers []string
		for _, m := range w.fake.Messages(coreThread) {
			if strings.HasPrefix(m.Text, "Summary") {
				answers = append(answers, m.Text)
			}
		}
		if len(answers) != 1 || !strings.Contains(answers[0], "Skipped 1 later run") || model.runs != 1 {
			t.Fatalf("after an overlap: %d runs, answers %q", model.runs, answers)
		}
		sid, _, _ := w.db.BoundSession(t.Context(), coreThread)
		msgs, _ := w.db.Messages(t.Context(), sid)
		if !slices.ContainsFunc(msgs, func(m llm.Message) bool {
			return m.Role == llm.RoleUser && strings.Contains(m.Text, "set by ana") && strings.Contains(m.Text, "summarise the channel")
		}) {
			t.Fatalf("the run was not ana's turn with the instruction: %+v", msgs)
		}

		model.set(func(m *scheduledModel) { m.failing = true })
		for range 3 {
			time.Sleep(10 * time.Minute)
			synctest.Wait()
		}
		items, _ := w.db.Items(t.Context(), "space:slack:W", "slack:ana")
		if len(items) != 1 || items[0].Status != remind.StatusPaused || items[0].Failures != 3 {
			t.Fatalf("after three failures: %+v", items)
		}
		var told []bottest.Call
		for _, c := range w.fake.Sent() {
			if strings.Contains(c.Out.Text, "I paused the schedule") {
				told = append(told, c)
			}
		}
		if len(told) != 1 || !slices.Equal(told[0].Out.Mentions, []chat.User{{Platform: "slack", ID: "ana", Name: "ana"}}) {
			t.Fatalf("the creator was not told once: %+v", told)
		}
		runs := model.runs
		time.Sleep(time.Hour)
		synctest.Wait()
		if model.runs != runs {
			t.Fatalf("a paused schedule ran %d more times", model.runs-runs)
		}
	})
}

// TestReminderCommands: /remind lists and cancels a person's own
// reminders of this place, an admin everyone's; another person sees none
// and can cancel none; a direct chat is a place of its own. /tz sets the
// zone the next reminder is read in, and /status names the next one.
func TestReminderCommands(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newTimeWorld(t)
		w.start(t, append(remindCall(`{"text":"water the plants","in":"3h"}`), remindCall(`{"text":"call mum","at":"tomorrow 09:00"}`)...)...)
		defer w.stop(t)
		if err := w.fake.InjectMessage(t.Context(), coreMention("k1", "ana", "remind me in 3h to water the plants")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		n := 0
		ask := func(user string, direct bool, args ...string) string {
			t.Helper()
			n++
			var got []string
			th := coreThread
			if direct {
				th = chat.Thread{Platform: "slack", Space: "W", Chat: "D-" + user}
			}
			c := chat.Command{Key: "c" + strings.Repeat("x", n), Thread: th, User: chat.User{Platform: "slack", ID: user, Name: user},
				Name: args[0], Args: args[1:], Direct: direct,
				Respond: func(_ context.Context, out chat.Out) error { got = append(got, out.Text); return nil }}
			if err := w.fake.InjectCommand(t.Context(), c); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			return strings.Join(got, "\n")
		}
		for _, tt := range []struct {
			user   string
			direct bool
			args   []string
			want   string
		}{
			{"bo", false, []string{"remind"}, "Your reminders here: none."},
			{"bo", false, []string{"remind", "cancel", "1"}, "There is no number 1 here"},
			{"ana", true, []string{"remind"}, "Your reminders here: none."}, // her DMs are another place
			{"ana", false, []string{"remind"}, "1. Sat 1 Jan 04:00 CET — water the plants"},
			{"ana", false, []string{"status"}, "Your next reminder here: Sat 1 Jan 04:00 CET — water the plants"},
			{"boss", false, []string{"remind"}, "water the plants — by ana"},
			{"boss", false, []string{"remind", "cancel", "1"}, `Cancelled: "water the plants".`},
			{"ana", false, []string{"remind"}, "Your reminders here: none."},
			{"ana", false, []string{"schedules", "pause", "1"}, "There is no number 1 here"},
			{"ana", false, []string{"tz"}, "Your time zone: Europe/Berlin (the default here)"},
			{"ana", false, []string{"tz", "Mars/Olympus"}, `time zone "Mars/Olympus" is unknown`},
			{"ana", false, []string{"tz", "set", "America/New_York"}, "Your time zone is now America/New_York (local time Fri 31 Dec 19:00 EST)"},
			{"ana", false, []string{"tz"}, "America/New_York (you set it)"},
		} {
			if got := ask(tt.user, tt.direct, tt.args...); !strings.Contains(got, tt.want) {
				t.Errorf("%s /%s: %q, want %q", tt.user, strings.Join(tt.args, " "), got, tt.want)
			}
		}
		// The cancel is in the audit log by who cancelled; refusals are not.
		log, err := w.db.AuditEntries(t.Context(), bot.AuditFilter{Action: "reminder."}, 10)
		if err != nil || len(log) != 1 || log[0].Actor != "slack:boss" || log[0].Action != "reminder.cancel" || log[0].Via != "chat" {
			t.Errorf("audit log: %+v, %v", log, err)
		}
		if err := w.fake.InjectMessage(t.Context(), coreMention("k2", "ana", "remind me tomorrow at 9 to call mum")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		items, _ := w.db.Items(t.Context(), "space:slack:W", "slack:ana")
		// "Tomorrow" on her calendar: Sat 1 Jan in New York, 09:00 EST.
		if len(items) != 1 || items[0].Zone != "America/New_York" || !items[0].Next.Equal(time.Date(2000, 1, 1, 14, 0, 0, 0, time.UTC)) {
			t.Fatalf("the reminder after /tz: %+v", items)
		}
	})
}

// TestReminderCallsOnlyMembers: a reminder may call others only if they
// are members of the place and may use Parley there, when it is set and
// again when it goes out: someone who left is not pinged back in.
func TestReminderCallsOnlyMembers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newTimeWorld(t)
		w.access.Platforms = map[string]bot.AccessList{"slack": {AllowUsers: []string{"ana", "bob", "eve", "cy"}}}
		w.fake.Leave(coreThread.Chat, "eve")
		w.start(t, append(append(remindCall(`{"text":"standup","in":"2h","who":["me","<@bob>","<@cy>"]}`),
			remindCall(`{"text":"eve too","in":"2h","who":["<@eve>"]}`)...),
			remindCall(`{"text":"zed too","in":"2h","who":["<@zed>"]}`)...)...)
		defer w.stop(t)
		for i, text := range []string{"remind us", "remind eve", "remind zed"} {
			if err := w.fake.InjectMessage(t.Context(), coreMention(fmt.Sprintf("k%d", i), "ana", text)); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
		}
		sid, _, _ := w.db.BoundSession(t.Context(), coreThread)
		msgs, _ := w.db.Messages(t.Context(), sid)
		var refusals []string
		for _, m := range msgs {
			if m.Role == llm.RoleTool && m.IsError {
				refusals = append(refusals, m.Text)
			}
		}
		if len(refusals) != 2 || !strings.Contains(refusals[0], "eve is not in this conversation") ||
			!strings.Contains(refusals[1], "zed may not use Parley here") {
			t.Fatalf("refusals %q, want eve (left) and zed (not allowed)", refusals)
		}
		w.fake.Leave(coreThread.Chat, "cy") // after it was set
		time.Sleep(2*time.Hour + time.Minute)
		synctest.Wait()
		got := reminders(w, "standup")
		if len(got) != 1 {
			t.Fatalf("%d reminders, want 1: %+v", len(got), w.fake.Sent())
		}
		var called []string
		for _, u := range got[0].Out.Mentions {
			called = append(called, u.ID)
		}
		if !slices.Equal(called, []string{"ana", "bob"}) {
			t.Fatalf("called %q, want ana and bob (cy left)", called)
		}
		if got := reminders(w, "eve too"); len(got) != 0 {
			t.Fatalf("a refused reminder went out: %+v", got)
		}
	})
}

// TestWaitForAReminder: a turn sets a reminder for twenty minutes and
// waits for it (the wait tool, for: reminder); when the timekeeper shows
// the reminder in the thread, the wait returns with its text — not at the
// timeout — and the turn goes on to its answer.
func TestWaitForAReminder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newTimeWorld(t)
		wait, err := task.Wait(nil)
		if err != nil {
			t.Fatal(err)
		}
		w.tools = append(w.tools, wait)
		w.start(t,
			llm.Response{ToolCalls: []llm.ToolCall{{ID: "r1", Name: "remind", Arguments: []byte(`{"text":"check the deploy","in":"20m"}`)}}},
			llm.Response{ToolCalls: []llm.ToolCall{{ID: "w1", Name: "wait", Arguments: []byte(`{"for":"reminder","timeout_seconds":1800}`)}}},
			llm.Response{Text: "The deploy is checked."},
		)
		defer w.stop(t)
		start := time.Now()
		if err := w.fake.InjectMessage(t.Context(), coreMention("k1", "ana", "deploy, and check it in 20 minutes")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := reminders(w, "check the deploy"); len(got) != 0 {
			t.Fatalf("a reminder shown at once: %+v", got)
		}
		// Past the reminder's time, before the wait's timeout.
		time.Sleep(21 * time.Minute)
		synctest.Wait()
		if got := reminders(w, "check the deploy"); len(got) != 1 {
			t.Fatalf("%d reminders shown after %s, want 1", len(got), time.Since(start))
		}
		sid, _, _ := w.db.BoundSession(t.Context(), coreThread)
		msgs, _ := w.db.Messages(t.Context(), sid)
		if !slices.ContainsFunc(msgs, func(m llm.Message) bool {
			return m.Role == llm.RoleTool && m.ToolName == "wait" && strings.HasPrefix(m.Text, task.WaitReminded) && strings.Contains(m.Text, "check the deploy")
		}) {
			t.Fatalf("the wait did not end with the reminder: %+v", msgs)
		}
		// The answer, shown when the reminder ended the wait: 20 minutes in,
		// not at the 30-minute timeout.
		answered := slices.IndexFunc(w.fake.Messages(coreThread), func(m bottest.Msg) bool { return m.Text == "The deploy is checked." })
		if answered < 0 {
			t.Fatalf("the turn's answer was not shown: %+v", w.fake.Messages(coreThread))
		}
		if m := w.fake.Messages(coreThread)[answered]; m.EditedAt.Sub(start) != 20*time.Minute {
			t.Fatalf("the answer was shown %s in, want 20m0s", m.EditedAt.Sub(start))
		}
	})
}
