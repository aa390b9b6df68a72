package main

// The platforms' sides of the reminder tests (reminders_e2e_test.go): Parley
// on each fake, a person who asks in a thread, and what the bot shows there;
// and a look into the database beside Parley.

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/store"
)

// remindSide is one platform's side of the reminder tests: Parley on the
// platform's fake, the person who asks (pinged as asker) and the thread
// they ask in, which ask starts.
type remindSide struct {
	*instance
	model *llmtest.Server
	// asker is the asker's id as the platform's fake reports pings, and
	// lead the mention of them a reminder starts with, as people read it.
	asker, lead string
	// ask: the asker addresses the bot with text, which starts a thread,
	// and the bot answers answer there.
	ask func(t *testing.T, ctx context.Context, text, answer string)
	// reply: the asker writes text in that thread, without mentioning the
	// bot (Telegram: replying to the message to), and the bot answers
	// answer there.
	reply func(t *testing.T, ctx context.Context, to shownMsg, text, answer string)
	// shown lists the bot's messages that read as reminders (⏰): in the
	// thread, and anywhere else on the platform.
	shown func() (inThread, elsewhere []shownMsg)
	// wait waits until cond holds, woken by the fake's changes.
	wait func(ctx context.Context, cond func() bool) error
	// check, when set, checks more of a reminder the platform's way.
	check func(t *testing.T, m shownMsg)
}

// shownMsg is a message of the bot as the platform shows it.
type shownMsg struct {
	id     string
	text   string   // what a person reads
	pinged []string // whom it notified, by id
}

// reminderShown keeps the messages that read as reminders.
func reminderShown(m shownMsg) bool { return strings.Contains(m.text, "⏰") }

func slackRemindSide(t *testing.T) *remindSide {
	slk := newWorkspace(t)
	model := llmtest.NewServer()
	t.Cleanup(model.Close)
	s := &remindSide{model: model, asker: "U1", lead: "<@U1>",
		instance: startInstance(t, platformConfig(t, filepath.Join(t.TempDir(), "data"), model, slackEnv(slk))),
		wait:     slk.WaitFor}
	var root string
	answered := func(t *testing.T, ctx context.Context, text string) {
		t.Helper()
		if err := slk.WaitFor(ctx, func() bool {
			return slices.ContainsFunc(slk.Thread("C1", root), func(m slacktest.Message) bool {
				return m.BotID != "" && m.Visible() == text && !m.Streaming
			})
		}); err != nil {
			t.Fatalf("the bot never answered %q in thread %s: %v; thread %+v", text, root, err, slk.Thread("C1", root))
		}
	}
	s.ask = func(t *testing.T, ctx context.Context, text, answer string) {
		root = slk.PostUserMessage("C1", "U1", "<@"+slk.BotUserID()+"> "+text, "")
		answered(t, ctx, answer)
	}
	s.reply = func(t *testing.T, ctx context.Context, _ shownMsg, text, answer string) {
		slk.PostUserMessage("C1", "U1", text, root)
		answered(t, ctx, answer)
	}
	s.shown = func() (in, out []shownMsg) {
		for _, m := range slk.Messages("C1") {
			sm := shownMsg{id: m.TS, text: m.Visible(), pinged: m.MentionedUsers()}
			switch {
			case m.BotID == "" || !reminderShown(sm):
			case m.ThreadTS == root && m.TS != root:
				in = append(in, sm)
			default:
				out = append(out, sm)
			}
		}
		return in, out
	}
	return s
}

// telegramRemindSide asks in the team's group (a reply chain), or in a
// topic of the forum when topic is set.
func telegramRemindSide(t *testing.T, topic bool) *remindSide {
	w := startTelegram(t, nil, nil)
	s := &remindSide{instance: w.instance, model: w.model, asker: strconv.FormatInt(tgAna, 10), lead: "Ana",
		wait: w.tg.WaitFor}
	chat, th := tgGroup, 0
	if topic {
		chat, th = tgForum, w.tg.AddTopic(tgForum, "standups")
	}
	s.ask = func(t *testing.T, ctx context.Context, text, answer string) {
		asked := w.tg.Post(telegramtest.Incoming{Chat: chat, Topic: th, From: tgAna, Text: text, Mention: true})
		if got := w.botSays(t, ctx, chat, th, answer); got.ReplyTo != asked.MessageID {
			t.Fatalf("the answer replies to message %d, want the question %d", got.ReplyTo, asked.MessageID)
		}
	}
	s.reply = func(t *testing.T, ctx context.Context, to shownMsg, text, answer string) {
		id, err := strconv.Atoi(to.id)
		if err != nil {
			t.Fatal(err)
		}
		w.tg.Post(telegramtest.Incoming{Chat: chat, Topic: th, From: tgAna, Text: text, ReplyTo: id})
		w.botSays(t, ctx, chat, th, answer)
	}
	s.shown = func() (in, out []shownMsg) {
		for _, c := range []int64{tgGroup, tgForum, tgAna, tgBo} {
			for _, m := range w.tg.BotMessages(c) {
				var pinged []string
				for _, id := range m.MentionedIDs() {
					pinged = append(pinged, strconv.FormatInt(id, 10))
				}
				sm := shownMsg{id: strconv.Itoa(m.ID), text: m.Visible, pinged: pinged}
				switch {
				case !reminderShown(sm):
				case c == chat && m.Topic == th:
					in = append(in, sm)
				default:
					out = append(out, sm)
				}
			}
		}
		return in, out
	}
	return s
}

func discordRemindSide(t *testing.T) *remindSide {
	w := startDiscord(t, nil, nil)
	s := &remindSide{instance: w.instance, model: w.model, asker: dcAna, lead: "<@" + dcAna + ">", wait: w.dc.WaitFor}
	var th string // the thread opened on the mention: its id is the mention's
	s.ask = func(t *testing.T, ctx context.Context, text, answer string) {
		th = w.dc.Post(discordtest.Incoming{Channel: dcChannel, Author: dcAna, Content: text, Mention: true})
		w.botSays(t, ctx, th, answer)
	}
	s.reply = func(t *testing.T, ctx context.Context, _ shownMsg, text, answer string) {
		w.dc.Post(discordtest.Incoming{Channel: th, Author: dcAna, Content: text})
		w.botSays(t, ctx, th, answer)
	}
	s.shown = func() (in, out []shownMsg) {
		for _, ch := range []string{th, dcChannel} {
			for _, m := range w.dc.BotMessages(ch) {
				sm := shownMsg{id: m.ID, text: m.Content, pinged: m.PingedUsers()}
				switch {
				case !reminderShown(sm):
				case ch == th:
					in = append(in, sm)
				default:
					out = append(out, sm)
				}
			}
		}
		return in, out
	}
	s.check = func(t *testing.T, r shownMsg) {
		for _, m := range w.dc.BotMessages(th) {
			if a := m.AllowedMentions; m.ID == r.id && (a == nil || len(a.Parse) != 0 || !slices.Equal(a.Users, []string{dcAna})) {
				t.Fatalf("the reminder's allowed_mentions are %+v, want no parse and exactly ana's id", a)
			}
		}
	}
	return s
}

// nextDue reads, with Parley stopped, the earliest due time of the active
// reminders in cfg's database; false when none is waiting.
func nextDue(t *testing.T, cfg *config.Config) (time.Time, bool) {
	t.Helper()
	db, err := store.Open(t.Context(), cfg.DBPath())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	at, ok, err := db.NextItemDue(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return at, ok
}

// delivered waits, beside the running Parley, until its database says
// the one reminder was claimed and its claim delivered.
func delivered(t *testing.T, ctx context.Context, cfg *config.Config) {
	t.Helper()
	waitDB(t, ctx, cfg, "the reminder's claim marked delivered", func(db *store.DB) (bool, error) {
		s, err := db.ReminderStats(ctx, time.Now())
		return s.Done == 1 && s.Undelivered == 0, err
	})
}

// turnsDone waits, beside the running Parley, until every event it
// accepted is done: an answer is shown before its turn has ended, and a
// turn a stop interrupts is run again at the next start.
func turnsDone(t *testing.T, ctx context.Context, cfg *config.Config) {
	t.Helper()
	waitDB(t, ctx, cfg, "every turn done", func(db *store.DB) (bool, error) {
		items, err := db.Unfinished(ctx)
		return len(items) == 0, err
	})
}

// waitDB polls cfg's database, opened beside the running Parley, until
// cond holds.
func waitDB(t *testing.T, ctx context.Context, cfg *config.Config, what string, cond func(*store.DB) (bool, error)) {
	t.Helper()
	db, err := store.Open(ctx, cfg.DBPath())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := cond(db)
		if ok && err == nil {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("never saw %s: %v", what, err)
		}
	}
}

// waitUntil waits for the wall clock to pass at (Parley is stopped: there
// is nothing else to wait on).
func waitUntil(t *testing.T, ctx context.Context, at time.Time) {
	t.Helper()
	timer := time.NewTimer(time.Until(at) + 10*time.Millisecond)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
		t.Fatalf("never reached %v: %v", at, ctx.Err())
	}
}
