// Package console is the terminal chat: a chat.Adapter whose one
// conversation is the OS user's, at the terminal. Lines typed go to the
// chat core like any platform's messages and commands; answers stream to
// the terminal as they are written; a message with buttons (an approval)
// is asked as y/N, and the answer is the operator's click. On a terminal
// the bot's Markdown is shown rendered (markdown.go); a pipe or a file
// gets it as written.
package console

import (
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/parleybot/parley/chat"
)

// Platform is the console's chat.Thread and chat.User platform.
const Platform = "console"

// The terminal takes any length and any pace; these limits only give the
// core's splitting and pacing sane figures. An answer longer than maxLen
// arrives in parts; appends to a streaming answer are coalesced to at
// most one per paceEvery (past a burst), which the eye cannot tell.
const (
	maxLen    = 64 * 1024
	splitAt   = 60 * 1024
	paceEvery = 20 * time.Millisecond
	paceBurst = 10
)

// Config configures the terminal chat.
type Config struct {
	In io.Reader
	// Out shows the chat. When it is a terminal (an *os.File on one, TERM
	// not "dumb"), the bot's Markdown is rendered for it (without colours
	// when NO_COLOR is set) and the model's control characters are
	// dropped; otherwise text is written as it is.
	Out io.Writer
	// User is the person at the terminal, the operator: the one person of
	// the one conversation, who asks and approves. Platform is set to
	// "console".
	User chat.User
	// Interactive prints a prompt before each input line (a terminal, not
	// a pipe); a pipe's answers to questions are echoed instead.
	Interactive bool
	// Interrupts delivers Ctrl-C: during an answer it stops the answer
	// (and denies a question waiting for its answer); at the prompt it
	// quits.
	Interrupts <-chan struct{}
	// Now is the clock that makes each run's keys unique (default
	// time.Now).
	Now func() time.Time
}

// Adapter is the terminal chat.
type Adapter struct {
	cfg    Config
	thread chat.Thread
	screen *screen
	run    string        // this run's id: its start, in Unix nanoseconds
	wake   chan struct{} // capacity 1: an answer ended, or a question changed

	mu      sync.Mutex
	next    int                 // the last number given to an event or message
	waiting string              // the key of the line whose answer Run waits for
	msgs    map[string]*message // printed messages by id, for edits
	order   []string            // ids in msgs, oldest first
}

// New returns the terminal chat with cfg.User.
func New(cfg Config) *Adapter {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.User.Platform = Platform
	a := &Adapter{
		cfg:    cfg,
		thread: chat.Thread{Platform: Platform, Chat: cfg.User.ID},
		run:    strconv.FormatInt(cfg.Now().UnixNano(), 10),
		wake:   make(chan struct{}, 1),
		msgs:   map[string]*message{},
	}
	a.screen = newScreen(cfg.Out, a.poke, newMarkdown(cfg.Out, os.Getenv))
	return a
}

// Platform is "console".
func (a *Adapter) Platform() string { return Platform }

// Thread is the one conversation: the operator's.
func (a *Adapter) Thread() chat.Thread { return a.thread }

// Capabilities: buttons are asked as y/N; what is "private" is printed,
// since the terminal is one person's.
func (a *Adapter) Capabilities() chat.Capabilities {
	return chat.Capabilities{
		MaxLen: maxLen, SplitAt: splitAt,
		EditEvery: paceEvery, EditBurst: paceBurst, EditScope: chat.PaceGlobal,
		Buttons: true, Ephemeral: true,
	}
}

// newID numbers the run's events and messages: "<run>:<n>", unique
// across runs, so the inbox never takes a line for one of an earlier run.
func (a *Adapter) newID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next++
	return a.run + ":" + strconv.Itoa(a.next)
}

// newKey is the durable inbox key of a new event.
func (a *Adapter) newKey() string { return Platform + ":" + a.newID() }

// poke wakes Run without blocking: a pending wake covers it.
func (a *Adapter) poke() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}
