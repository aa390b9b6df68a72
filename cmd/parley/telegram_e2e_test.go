package main

// End to end on Telegram: the real adapter (telegram-bot-api v5 plus its
// raw MakeRequest) against telegramtest over HTTP, through the whole
// runtime (router, delivery, pacer, approvals, SQLite), llmtest as the model.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// The Telegram world of these tests: two people who started the bot, a
// group without topics and a forum.
const (
	tgAna   int64 = 101
	tgBo    int64 = 102
	tgGroup int64 = -1001
	tgForum int64 = -1002
)

// tgWorld is Parley on Telegram with its fake platform and model.
type tgWorld struct {
	*instance
	tg    *telegramtest.Server
	model *llmtest.Server
}

// startTelegram runs Parley on a fresh telegramtest (its real rate limits
// on unless opts say otherwise).
func startTelegram(t *testing.T, extra map[string]string, opts []telegramtest.Option, modelOpts ...llmtest.Option) *tgWorld {
	t.Helper()
	tg := telegramtest.NewServer(opts...)
	t.Cleanup(tg.Close)
	tg.AddUser(tgAna, "Ana", "ana")
	tg.AddUser(tgBo, "Bo", "bo")
	tg.AddGroup(tgGroup, "team")
	tg.AddForum(tgForum, "dev")
	model := llmtest.NewServer(modelOpts...)
	t.Cleanup(model.Close)
	env := map[string]string{
		"PARLEY_TELEGRAM_ENABLED":            "true",
		"PARLEY_TELEGRAM_TOKEN":              tg.Token(),
		"PARLEY_TELEGRAM_API_URL":            tg.URL,
		"PARLEY_ACCESS_TELEGRAM_ALLOW_USERS": fmt.Sprintf("%d,%d", tgAna, tgBo),
	}
	for k, v := range extra {
		env[k] = v
	}
	return &tgWorld{tg: tg, model: model,
		instance: startInstance(t, platformConfig(t, filepath.Join(t.TempDir(), "data"), model, env))}
}

// waitCtx bounds a test's waits: reaching it means a hang, not slowness.
func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// botSays waits until the bot shows a message reading text in chat (and
// topic, when non-zero), and returns it.
func (w *tgWorld) botSays(t *testing.T, ctx context.Context, chat int64, topic int, text string) telegramtest.Message {
	t.Helper()
	var found telegramtest.Message
	err := w.tg.WaitFor(ctx, func() bool {
		for _, m := range w.tg.BotMessages(chat) {
			if m.Topic == topic && m.Visible == text {
				found = m
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("the bot never showed %q in chat %d topic %d: %v; it shows %+v", text, chat, topic, err, w.tg.BotMessages(chat))
	}
	return found
}

func TestTelegramPrivateChatStreams(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, nil, nil)
	ctx := waitCtx(t)
	w.model.Enqueue(llmtest.Text("One, ", "two, ", "three, ", "four.").Paced(1200 * time.Millisecond))
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "count to four"})
	final := w.botSays(t, ctx, tgAna, 0, "One, two, three, four.")

	// Streamed: the person saw the answer grow before it was final, as a
	// draft or by edits of the one message.
	var partial []string
	for _, d := range w.tg.Drafts(tgAna) {
		partial = append(partial, d.Text)
	}
	if len(partial) < 2 && final.Edits < 2 {
		t.Fatalf("not streamed: drafts %q, %d edits", partial, final.Edits)
	}
	if n := w.tg.RateLimited(); n != 0 {
		t.Fatalf("Telegram answered %d 429s; pacing must stay inside its limits", n)
	}
	if n := len(w.tg.BotMessages(tgAna)); n != 1 {
		t.Fatalf("%d bot messages, want 1: %+v", n, w.tg.BotMessages(tgAna))
	}
}

func TestTelegramGroupGating(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, nil, nil)
	ctx := waitCtx(t)

	// Not addressed to the bot: silence. The next message is answered
	// only after this one was handled (updates are handled in order), so
	// its answer proves the silence.
	w.tg.Post(telegramtest.Incoming{Chat: tgGroup, From: tgAna, Text: "lunch at noon?"})
	w.model.Enqueue(llmtest.Text("Four."))
	asked := w.tg.Post(telegramtest.Incoming{Chat: tgGroup, From: tgAna, Text: "what is 2+2", Mention: true})
	answer := w.botSays(t, ctx, tgGroup, 0, "Four.")
	if answer.ReplyTo != asked.MessageID {
		t.Fatalf("the answer replies to message %d, want the question %d", answer.ReplyTo, asked.MessageID)
	}
	if n := len(w.model.Requests()); n != 1 {
		t.Fatalf("%d model calls, want 1: the unaddressed message must not be answered", n)
	}

	// Replying to the bot continues the conversation without a mention.
	w.model.Enqueue(llmtest.Text("Twelve."))
	w.tg.Post(telegramtest.Incoming{Chat: tgGroup, From: tgAna, Text: "and times 3?", ReplyTo: answer.ID})
	w.botSays(t, ctx, tgGroup, 0, "Twelve.")
	reqs := w.model.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "what is 2+2") {
		t.Fatalf("the reply did not continue the conversation: %d calls", len(reqs))
	}

	// A fresh mention starts a new conversation.
	w.model.Enqueue(llmtest.Text("Hello again."))
	w.tg.Post(telegramtest.Incoming{Chat: tgGroup, From: tgBo, Text: "hi", Mention: true})
	w.botSays(t, ctx, tgGroup, 0, "Hello again.")
	if reqs := w.model.Requests(); strings.Contains(string(reqs[2].Body), "what is 2+2") {
		t.Fatal("a fresh mention continued the earlier conversation")
	}
}

func TestTelegramForumTopicsAreSeparate(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, nil, nil)
	ctx := waitCtx(t)
	a := w.tg.AddTopic(tgForum, "release")
	b := w.tg.AddTopic(tgForum, "design")

	w.model.Enqueue(llmtest.Text("Noted."))
	w.tg.Post(telegramtest.Incoming{Chat: tgForum, Topic: a, From: tgAna, Text: "the codename is falcon", Mention: true})
	w.botSays(t, ctx, tgForum, a, "Noted.")

	w.model.Enqueue(llmtest.Text("I don't know."))
	w.tg.Post(telegramtest.Incoming{Chat: tgForum, Topic: b, From: tgAna, Text: "what is the codename?", Mention: true})
	w.botSays(t, ctx, tgForum, b, "I don't know.")
	if reqs := w.model.Requests(); len(reqs) != 2 || strings.Contains(string(reqs[1].Body), "falcon") {
		t.Fatal("topic design saw topic release's conversation")
	}

	// Back in the first topic, without a mention: it continues there.
	w.model.Enqueue(llmtest.Text("Falcon."))
	w.tg.Post(telegramtest.Incoming{Chat: tgForum, Topic: a, From: tgAna, Text: "remind me?", Mention: true})
	w.botSays(t, ctx, tgForum, a, "Falcon.")
	if reqs := w.model.Requests(); !strings.Contains(string(reqs[2].Body), "falcon") {
		t.Fatal("topic release lost its conversation")
	}
	for _, m := range w.tg.BotMessages(tgForum) {
		if m.Topic != a && m.Topic != b {
			t.Fatalf("a bot message outside the topics: %+v", m)
		}
	}
}

func TestTelegramApprovalButtons(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, map[string]string{"PARLEY_TOOLS_SHELL_ENABLED": "true", "PARLEY_TOOLS_APPROVAL_APPROVERS": fmt.Sprintf("telegram:%d", tgAna)}, nil)
	ctx := waitCtx(t)
	w.model.Enqueue(llmtest.ToolCall("c1", "shell", `{"command":"echo tg-approved"}`), llmtest.Text("Ran it."))
	w.tg.Post(telegramtest.Incoming{Chat: tgGroup, From: tgAna, Text: "run the check", Mention: true})

	var prompt telegramtest.Message
	if err := w.tg.WaitFor(ctx, func() bool {
		for _, m := range w.tg.BotMessages(tgGroup) {
			if len(m.Buttons) == 1 && len(m.Buttons[0]) == 2 {
				prompt = m
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no approval message: %v; %+v", err, w.tg.BotMessages(tgGroup))
	}
	if b := prompt.Buttons[0]; !strings.Contains(b[0].Text, "Approve") || !strings.Contains(b[1].Text, "Deny") || len(b[0].Data) > 64 {
		t.Fatalf("buttons %+v", b)
	}

	// Bo is not the requester: an alert, and nothing runs.
	if _, err := w.tg.Click(tgGroup, prompt.ID, 0, tgBo); err != nil {
		t.Fatal(err)
	}
	if err := w.tg.WaitFor(ctx, func() bool {
		for _, a := range w.tg.CallbackAnswers() {
			if a.UserID == tgBo {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	for _, a := range w.tg.CallbackAnswers() {
		if a.UserID == tgBo && (!a.ShowAlert || !strings.Contains(a.Text, "Only an approver can approve this; Ana can deny it")) {
			t.Fatalf("bo's click was answered %+v", a)
		}
	}
	if n := len(w.model.Requests()); n != 1 {
		t.Fatalf("bo's click ran something: %d model calls", n)
	}

	// Ana approves: the message shows who decided and loses its keyboard,
	// the tool runs and the answer goes on.
	if _, err := w.tg.Click(tgGroup, prompt.ID, 0, tgAna); err != nil {
		t.Fatal(err)
	}
	w.botSays(t, ctx, tgGroup, 0, "Ran it.")
	for _, m := range w.tg.BotMessages(tgGroup) {
		if m.ID == prompt.ID && (len(m.Buttons) != 0 || !strings.Contains(m.Visible, "Approved by Ana")) {
			t.Fatalf("the decided approval reads %q with buttons %+v", m.Visible, m.Buttons)
		}
	}
	reqs := w.model.Requests()
	if !strings.Contains(string(reqs[len(reqs)-1].Body), "tg-approved") {
		t.Fatal("the tool's output never reached the model")
	}
	answered := map[string]int{}
	for _, a := range w.tg.CallbackAnswers() {
		answered[a.QueryID]++
	}
	if len(answered) != 2 {
		t.Fatalf("callback answers %+v, want each of the 2 clicks answered", w.tg.CallbackAnswers())
	}
	for id, n := range answered {
		if n != 1 {
			t.Fatalf("callback %s answered %d times", id, n)
		}
	}
}

func TestTelegramMemoryInGroupGoesPrivate(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, nil, nil)
	ctx := waitCtx(t)
	w.model.Enqueue(
		llmtest.ToolCall("m1", "memory", `{"action":"add","target":"profile","content":"Ana prefers green tea"}`),
		llmtest.Text("SAFE"), // the memory judge
		llmtest.Text("I'll remember."))
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "remember that I prefer green tea"})
	w.botSays(t, ctx, tgAna, 0, "I'll remember.")

	// The commands are in Telegram's menu.
	var menu []string
	for _, c := range w.tg.Commands() {
		menu = append(menu, c.Command)
	}
	if got := strings.Join(menu, " "); got != "memory kb skills reflect remind schedules tz new stop pause resume worklog status agent model usage console help" {
		t.Fatalf("command menu %q", got)
	}

	w.tg.Post(telegramtest.Incoming{Chat: tgGroup, From: tgAna, Text: "/memory@" + w.tg.BotUsername()})
	if err := w.tg.WaitFor(ctx, func() bool {
		for _, m := range w.tg.BotMessages(tgAna) {
			if strings.Contains(m.Visible, "prefers green tea") {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("/memory was not answered privately: %v; %+v", err, w.tg.BotMessages(tgAna))
	}
	if err := w.tg.WaitFor(ctx, func() bool { return len(w.tg.BotMessages(tgGroup)) > 0 }); err != nil {
		t.Fatalf("no note in the group: %v", err)
	}

	// Bo never started a private chat: the group note tells him to.
	w.tg.SetStarted(tgBo, false)
	w.tg.Post(telegramtest.Incoming{Chat: tgGroup, From: tgBo, Text: "/memory"})
	if err := w.tg.WaitFor(ctx, func() bool { return len(w.tg.BotMessages(tgGroup)) > 1 }); err != nil {
		t.Fatalf("no note for bo: %v", err)
	}
	msgs := w.tg.BotMessages(tgGroup)
	if note := msgs[1].Visible; !strings.Contains(note, "Start") {
		t.Fatalf("the note for bo does not say how to start a private chat: %q", note)
	}
	for _, m := range msgs {
		if strings.Contains(m.Visible, "green tea") {
			t.Fatalf("memory shown in the group: %q", m.Visible)
		}
	}
}

// TestTelegramLongAnswerSplits: a 10,000-character answer with a long code
// block arrives whole, in messages within Telegram's limit, each valid
// HTML (the fake rejects unbalanced tags) with the code kept as code.
func TestTelegramLongAnswerSplits(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, nil, nil)
	ctx := waitCtx(t)
	var b strings.Builder
	b.WriteString("Here is the program.\n\n```go\n")
	for i := 0; b.Len() < 7000; i++ {
		fmt.Fprintf(&b, "fmt.Println(\"line %04d <tag> & more\")\n", i)
	}
	b.WriteString("```\n\n")
	for i := 0; b.Len() < 10000; i++ {
		fmt.Fprintf(&b, "Sentence %d explains the code. ", i)
	}
	b.WriteString("The end.")
	answer := b.String()
	w.model.Enqueue(llmtest.Text(answer))
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "write a long program"})
	if err := w.tg.WaitFor(ctx, func() bool {
		msgs := w.tg.BotMessages(tgAna)
		return len(msgs) > 0 && strings.HasSuffix(msgs[len(msgs)-1].Visible, "The end.")
	}); err != nil {
		t.Fatalf("the answer never ended: %v", err)
	}
	msgs := w.tg.BotMessages(tgAna)
	if len(msgs) < 3 {
		t.Fatalf("%d messages for 10,000 characters", len(msgs))
	}
	var code strings.Builder
	for i, m := range msgs {
		if n := len(utf16.Encode([]rune(m.Visible))); n > 4096 {
			t.Fatalf("message %d is %d UTF-16 units long", i, n)
		}
		for _, c := range m.Code {
			code.WriteString(c)
		}
	}
	for _, line := range []string{"line 0000 <tag> & more", "line 0100 <tag> & more"} {
		if !strings.Contains(code.String(), line) {
			t.Fatalf("code line %q is not shown as code", line)
		}
	}
	if strings.Contains(code.String(), "```") {
		t.Fatal("a fence leaked into the code")
	}
}

// TestTelegram429Storm: 40 % of sends and edits answer 429; the answer
// still arrives once, complete, in one message.
func TestTelegram429Storm(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, nil, []telegramtest.Option{telegramtest.WithSeed(7)})
	ctx := waitCtx(t)
	w.tg.Storm(0.4, 1, "sendMessage", "editMessageText", "sendMessageDraft")
	chunks := []string{"Storm ", "or ", "no ", "storm, ", "this ", "answer ", "arrives ", "once."}
	w.model.Enqueue(llmtest.Text(chunks...).Paced(300 * time.Millisecond))
	w.tg.Post(telegramtest.Incoming{Chat: tgGroup, From: tgAna, Text: "go", Mention: true})
	w.botSays(t, ctx, tgGroup, 0, strings.Join(chunks, ""))
	if n := len(w.tg.BotMessages(tgGroup)); n != 1 {
		t.Fatalf("%d bot messages, want 1: %+v", n, w.tg.BotMessages(tgGroup))
	}
	limited := 0
	for _, c := range w.tg.Calls() {
		if c.Status == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited == 0 {
		t.Fatal("the storm never hit: the test proves nothing")
	}
}

func TestTelegramSameUpdateTwice(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, nil, nil)
	ctx := waitCtx(t)
	w.model.Enqueue(llmtest.Text("First."))
	first := w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "one"})
	w.botSays(t, ctx, tgAna, 0, "First.")
	if err := w.tg.Redeliver(first.UpdateID); err != nil {
		t.Fatal(err)
	}
	w.model.Enqueue(llmtest.Text("Second."))
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "two"})
	w.botSays(t, ctx, tgAna, 0, "Second.")
	if n, m := len(w.model.Requests()), len(w.tg.BotMessages(tgAna)); n != 2 || m != 2 {
		t.Fatalf("%d model calls and %d messages, want 2 and 2", n, m)
	}
}

// TestTelegramRestartMidPoll: Parley stops while a long poll is open, a
// message arrives while it is down, and the restarted Parley answers it
// and nothing else: the offset saved before the stop is where it resumes.
func TestTelegramRestartMidPoll(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, nil, nil)
	ctx := waitCtx(t)
	w.model.Enqueue(llmtest.Text("Before."))
	first := w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "before the restart"})
	w.botSays(t, ctx, tgAna, 0, "Before.")
	if err := w.tg.WaitFor(ctx, w.tg.Polling); err != nil {
		t.Fatal(err) // the next long poll is open
	}
	w.stop()

	w.model.Enqueue(llmtest.Text("After."))
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "while it was down"})
	calls := len(w.tg.CallsTo("getUpdates"))
	w.start(t)
	w.botSays(t, ctx, tgAna, 0, "After.")
	if n, m := len(w.model.Requests()), len(w.tg.BotMessages(tgAna)); n != 2 || m != 2 {
		t.Fatalf("%d model calls and %d messages, want 2 and 2", n, m)
	}
	resumed := w.tg.CallsTo("getUpdates")[calls]
	if got, want := resumed.Params["offset"], strconv.Itoa(first.UpdateID+1); got != want {
		t.Fatalf("the restarted poll asked from offset %q, want %q (just after the answered update)", got, want)
	}
}

func TestTelegramWebhookRejectsWrongSecret(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	hook := "http://" + addr + "/tg-hook"
	w := startTelegram(t, map[string]string{
		"PARLEY_TELEGRAM_MODE":           "webhook",
		"PARLEY_TELEGRAM_WEBHOOK_URL":    hook,
		"PARLEY_TELEGRAM_WEBHOOK_SECRET": "right-secret",
		"PARLEY_HTTP_LISTEN":             addr,
	}, nil)
	ctx := waitCtx(t)
	if err := w.tg.WaitFor(ctx, func() bool { return w.tg.WebhookURL() == hook }); err != nil {
		t.Fatalf("no webhook registered: %v", err)
	}

	forged := `{"update_id":9,"message":{"message_id":9,"date":1,"chat":{"id":101,"type":"private"},"from":{"id":101,"is_bot":false,"first_name":"Ana"},"text":"forged"}}`
	for _, secret := range []string{"", "wrong-secret"} {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, hook, strings.NewReader(forged))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if secret != "" {
			req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("secret %q: status %d, want 401", secret, resp.StatusCode)
		}
	}

	// The real Telegram, with the secret, is heard.
	w.model.Enqueue(llmtest.Text("Heard you."))
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "hello"})
	w.botSays(t, ctx, tgAna, 0, "Heard you.")
	if n := len(w.model.Requests()); n != 1 {
		t.Fatalf("%d model calls: a forged update was answered", n)
	}
}
