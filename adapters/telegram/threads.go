package telegram

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parleybot/parley/chat"
)

// Conversation identity (docs/architecture.md, Conversation identity;
// docs/platforms.md#telegram-conversations): chat.Thread{Chat: chat id,
// ID: ""} for a private chat, "topic:<message_thread_id>" for a forum
// topic, and "<root message_id>" for a reply chain in a group without
// topics.
const topicPrefix = "topic:"

// where is a chat.Thread decoded for the Bot API.
type where struct {
	chat  int64
	topic int // message_thread_id; 0 none
	root  int // reply chain root; 0 none
}

func parseThread(t chat.Thread) (where, error) {
	if t.Platform != "" && t.Platform != platform {
		return where{}, fmt.Errorf("telegram: thread %v belongs to another platform", t)
	}
	chat, err := strconv.ParseInt(t.Chat, 10, 64)
	if err != nil || chat == 0 {
		return where{}, fmt.Errorf("telegram: thread %v has no chat id", t)
	}
	w := where{chat: chat}
	switch {
	case t.ID == "":
	case strings.HasPrefix(t.ID, topicPrefix):
		w.topic, err = strconv.Atoi(strings.TrimPrefix(t.ID, topicPrefix))
		if err != nil || w.topic <= 0 {
			return where{}, fmt.Errorf("telegram: thread %v has a malformed topic", t)
		}
	default:
		w.root, err = strconv.Atoi(t.ID)
		if err != nil || w.root <= 0 {
			return where{}, fmt.Errorf("telegram: thread %v has a malformed reply chain root", t)
		}
	}
	return w, nil
}

func makeThread(chatID int64, id string) chat.Thread {
	return chat.Thread{Platform: platform, Chat: strconv.FormatInt(chatID, 10), ID: id}
}

func topicID(threadID int) string { return topicPrefix + strconv.Itoa(threadID) }

// private reports a private chat: Telegram gives people positive ids and
// groups negative ones, and a private chat's id is the person's.
func private(chat int64) bool { return chat > 0 }

// chainPrefix starts the State key of every chain entry.
const chainPrefix = "telegram:chain:"

// chainKey is where the State remembers which chain a group message
// belongs to.
func chainKey(chat int64, messageID int) string {
	return fmt.Sprintf("%s%d:%d", chainPrefix, chat, messageID)
}

// Chain entries are kept chainTTL after they were written, and swept every
// chainSweep: one row per group message would otherwise grow forever. A
// reply to a bot message older than that starts a new conversation.
const (
	chainTTL   = 90 * 24 * time.Hour
	chainSweep = 24 * time.Hour
)

// sweepChains forgets chain entries older than chainTTL, now and every
// chainSweep, until ctx ends.
func (a *Adapter) sweepChains(ctx context.Context) {
	for {
		n, err := a.state.DeleteStale(ctx, chainPrefix, a.now().Add(-chainTTL))
		switch {
		case err != nil && ctx.Err() == nil:
			a.log.Warn("could not forget old reply chains", "err", err)
		case n > 0:
			a.log.Info("forgot old reply chains", "entries", n, "older_than", chainTTL)
		}
		if a.sleep(ctx, chainSweep) != nil {
			return
		}
	}
}

// chainOf returns the root of the chain message belongs to, if known.
func (a *Adapter) chainOf(ctx context.Context, chat int64, messageID int) (int, bool, error) {
	v, ok, err := a.state.Get(ctx, chainKey(chat, messageID))
	if err != nil || !ok {
		return 0, false, err
	}
	root, err := strconv.Atoi(v)
	if err != nil {
		return 0, false, fmt.Errorf("telegram: chain of message %d in %d is %q, not a message id", messageID, chat, v)
	}
	return root, true, nil
}

// joinChain records that message belongs to the chain rooted at root, so
// that a reply to it continues the conversation.
func (a *Adapter) joinChain(ctx context.Context, chat int64, messageID, root int) error {
	if err := a.state.Set(ctx, chainKey(chat, messageID), strconv.Itoa(root)); err != nil {
		return fmt.Errorf("telegram: remember reply chain: %w", err)
	}
	return nil
}

// chainSends are the sends into reply chains still waiting for their
// message id. An answer is often one message sent with its final text, and
// a reply to it can arrive before the send has recorded it in its chain;
// the reply then waits for the chat's sends (at most chainWait) rather
// than start a new conversation.
type chainSends struct {
	mu   sync.Mutex
	n    map[int64]int
	idle map[int64]chan struct{} // closed when the chat's count drops to 0
}

// chainWait bounds how long a reply waits for the sends of its chat.
const chainWait = 5 * time.Second

// begin counts a send into chat; end, once its message is in its chain.
func (c *chainSends) begin(chat int64) (end func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n, c.idle = map[int64]int{}, map[int64]chan struct{}{}
	}
	if c.n[chat] == 0 {
		c.idle[chat] = make(chan struct{})
	}
	c.n[chat]++
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.n[chat]--; c.n[chat] == 0 {
			close(c.idle[chat])
			delete(c.n, chat)
			delete(c.idle, chat)
		}
	}
}

// wait returns once no send into chat is in flight, or after chainWait.
func (c *chainSends) wait(ctx context.Context, chat int64) {
	c.mu.Lock()
	idle, busy := c.idle[chat]
	c.mu.Unlock()
	if !busy {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, chainWait)
	defer cancel()
	select {
	case <-idle:
	case <-ctx.Done():
	}
}
