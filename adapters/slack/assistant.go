package slack

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/chat"
)

// Slack's AI-app surfaces beyond the status (adapter.go Typing): the
// suggested prompts shown when someone opens an assistant thread, and the
// thread's title, taken from the first thing they write in it. Both are
// courtesies: a workspace without the AI-app features or the
// assistant:write scope just doesn't show them, and the error is logged.

// suggestedPrompts are the prompts an assistant thread starts with; the
// manifest declares the same ones (manifest.go).
func suggestedPrompts() []prompt {
	return []prompt{
		{Title: "Summarize a channel", Message: "Summarize the decisions made in this channel this week."},
		{Title: "What do you remember?", Message: "What do you remember about me?"},
		{Title: "Draft a reply", Message: "Help me draft a reply to the last message in this thread."},
	}
}

const (
	// assistantCallWait bounds a setSuggestedPrompts or setTitle call made
	// while receiving: a courtesy must not hold up the events behind it.
	assistantCallWait = 2 * time.Second
	// maxTitle is how many characters of the first message a thread's
	// title shows, "…" included.
	maxTitle = 60
	// maxUntitled caps the assistant threads remembered as started and not
	// yet titled; past it the least recently started are forgotten (they
	// just get no title).
	maxUntitled = 1024
)

// untitledThreads is a bounded set of assistant threads (channel/thread
// ts) that started and have no title yet, least recently started first
// out. It is safe for concurrent use; a nil set holds nothing.
type untitledThreads struct {
	threads *adapterkit.Cache[string, struct{}]
}

func newUntitledThreads(n int) *untitledThreads {
	return &untitledThreads{threads: adapterkit.NewCache[string, struct{}](n)}
}

func threadKey(channel, ts string) string { return channel + "/" + ts }

// add remembers the thread, forgetting the oldest past the cap.
func (u *untitledThreads) add(channel, ts string) {
	if u == nil {
		return
	}
	// Update, not Put: a thread started again is the most recent again.
	u.threads.Update(threadKey(channel, ts), func(struct{}, bool) struct{} { return struct{}{} })
}

// take forgets the thread and reports whether it was there: true once
// per started thread.
func (u *untitledThreads) take(channel, ts string) bool {
	if u == nil {
		return false
	}
	_, ok := u.threads.Take(threadKey(channel, ts))
	return ok
}

// assistantThreadStarted offers the suggested prompts in a new assistant
// thread and remembers it, so its first message titles it. Nothing goes
// to the handler: no one has said anything yet.
func (a *Adapter) assistantThreadStarted(ctx context.Context, ev *slackevents.AssistantThreadStartedEvent) {
	t := ev.AssistantThread
	if t.ChannelID == "" || t.ThreadTimeStamp == "" {
		return
	}
	a.untitled.add(t.ChannelID, t.ThreadTimeStamp)
	ps := suggestedPrompts()
	params := slack.AssistantThreadsSetSuggestedPromptsParameters{
		ChannelID: t.ChannelID, ThreadTS: t.ThreadTimeStamp,
		Prompts: make([]slack.AssistantThreadsPrompt, len(ps)),
	}
	for i, p := range ps {
		params.Prompts[i] = slack.AssistantThreadsPrompt{Title: p.Title, Message: p.Message}
	}
	cctx, cancel := context.WithTimeout(ctx, assistantCallWait)
	defer cancel()
	if err := a.api.SetAssistantThreadsSuggestedPromptsContext(cctx, params); err != nil {
		a.log.Warn("suggested prompts not shown", "channel", t.ChannelID, "thread", t.ThreadTimeStamp,
			"err", wrap("assistant.threads.setSuggestedPrompts", err))
	}
}

// titleThread titles an assistant thread after the first message someone
// writes in it, once per thread; other messages are left alone.
func (a *Adapter) titleThread(ctx context.Context, m chat.Message) {
	if !m.Direct || m.FromBot || m.Thread.ID == "" {
		return
	}
	title := cutTitle(m.Text, maxTitle)
	if title == "" {
		return // a file alone: the next message with words titles it
	}
	if !a.untitled.take(m.Thread.Chat, m.Thread.ID) {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, assistantCallWait)
	defer cancel()
	err := a.api.SetAssistantThreadsTitleContext(cctx, slack.AssistantThreadsSetTitleParameters{
		ChannelID: m.Thread.Chat, ThreadTS: m.Thread.ID, Title: title,
	})
	if err != nil {
		a.log.Warn("thread title not set", "thread", m.Thread.String(), "err", wrap("assistant.threads.setTitle", err))
	}
}

// cutTitle makes text a one-line title of at most n characters: spaces
// collapsed, and past n cut at the last word boundary (mid-word only for
// one long word) with "…" appended.
func cutTitle(text string, n int) string {
	s := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	cut := n - 1       // room for the ellipsis
	if r[cut] != ' ' { // r[:cut] ends inside a word: back to its start
		if i := lastSpace(r[:cut]); i > 0 {
			cut = i
		}
	}
	return strings.TrimRight(string(r[:cut]), " ,.;:-–—") + "…"
}

func lastSpace(r []rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if r[i] == ' ' {
			return i
		}
	}
	return -1
}
