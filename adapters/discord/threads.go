package discord

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/chat"
)

// A guild conversation is chat.Thread{Space: guild, Chat: parent channel P,
// ID: root message M} (docs/architecture.md, Conversation identity;
// docs/platforms.md#discord-threads). The bot answers it in the thread
// started on M (whose channel id is M), opened on the first Send or
// Typing; where threads cannot be opened it answers inline in P, replying
// to M. Which of the two is remembered per conversation in memory; after
// a restart the first Send tries the thread again (Discord answers
// "already created" if it exists) and Edit tries the thread channel first.

// replyMode is where a guild conversation is answered.
type replyMode int

const (
	inThread      replyMode = iota + 1 // in the thread whose id is the root's
	inlineReplies                      // in the parent channel, replying to the root
)

// archiveMinutes is how long an idle thread stays in the channel list.
const archiveMinutes = 1440

// maxThreadName is Discord's limit on a thread name.
const maxThreadName = 100

// fallbackThreadName names a thread whose root message the adapter never
// saw (a restart in between).
const fallbackThreadName = "Parley"

// chanInfo is what normalization needs to know about a channel.
type chanInfo struct {
	GuildID  string
	ParentID string // for threads
	Name     string
	Thread   bool
	// Recipient is, for a DM, the user it is with.
	Recipient string
}

// seenMessage is what the adapter remembers of a recent message.
type seenMessage struct {
	// name is the thread's name should one be opened on it: threadName
	// of its text, not the text, which may be 4,000 characters, in each
	// of rememberMessages entries; "" in DMs, which have no threads.
	name  string
	root  string // the conversation it belongs to in its channel ("" in DMs)
	byBot bool   // replying to it counts as mentioning the bot
}

// destination is where a message for a conversation goes.
type destination struct {
	channel   string
	reference *discordgo.MessageReference // inline replies
	// guessed: the conversation's mode was unknown and the thread channel
	// is a guess (Edit without opening).
	guessed bool
}

// destination resolves t to a channel; with open, an unknown guild
// conversation gets its thread opened first.
func (a *Adapter) destination(ctx context.Context, t chat.Thread, open bool) (destination, error) {
	if t.Platform != "" && t.Platform != platform {
		return destination{}, fmt.Errorf("discord: thread %v belongs to another platform", t)
	}
	if t.Chat == "" {
		return destination{}, fmt.Errorf("discord: thread %v has no channel", t)
	}
	if t.ID == "" || t.ID == t.Chat {
		return destination{channel: t.Chat}, nil
	}
	mode, ok := a.modes.Get(t.ID)
	if !ok && !open {
		return destination{channel: t.ID, guessed: true}, nil
	}
	if !ok {
		var err error
		if mode, err = a.openThread(ctx, t); err != nil {
			return destination{}, err
		}
	}
	if mode == inlineReplies {
		return destination{channel: t.Chat, reference: &discordgo.MessageReference{
			MessageID: t.ID, ChannelID: t.Chat, GuildID: t.Space, FailIfNotExists: new(false),
		}}, nil
	}
	return destination{channel: t.ID}, nil
}

// openThread starts the thread on t's root message, once even when Typing
// and Send race for it.
func (a *Adapter) openThread(ctx context.Context, t chat.Thread) (replyMode, error) {
	unlock, err := a.opening.lock(ctx, t.ID)
	if err != nil {
		return 0, err
	}
	defer unlock()
	if mode, ok := a.modes.Get(t.ID); ok {
		return mode, nil // the racer opened it
	}
	name := fallbackThreadName
	if m, ok := a.msgs.Get(t.ID); ok && m.name != "" {
		name = m.name
	}
	th, err := a.s.MessageThreadStart(t.Chat, t.ID, name, archiveMinutes, a.callOpts(ctx)...)
	switch code, status := restCode(err); {
	case err == nil:
		a.chans.Put(th.ID, chanInfo{GuildID: t.Space, ParentID: t.Chat, Name: th.Name, Thread: true})
	case code == discordgo.ErrCodeThreadAlreadyCreatedForThisMessage:
		// Opened earlier (before a restart, or by a person): answer there.
	case status == http.StatusForbidden || code == discordgo.ErrCodeMissingPermissions ||
		code == discordgo.ErrCodeCannotExecuteActionOnThisChannelType:
		if a.warned.Add("threads:"+t.Chat, struct{}{}) {
			a.log.Warn("cannot open threads in this channel; answering inline with replies "+
				"(give the bot Create Public Threads and Send Messages in Threads there)",
				"channel", t.Chat, "err", err)
		}
		a.modes.Put(t.ID, inlineReplies)
		return inlineReplies, nil
	case status == http.StatusNotFound && a.channel(ctx, t.ID).Thread:
		// The conversation is a thread opened without a starter message
		// (found by normalize, then forgotten): it is its own channel.
	default:
		return 0, wrap("POST /channels/{id}/messages/{id}/threads", err)
	}
	a.modes.Put(t.ID, inThread)
	return inThread, nil
}

// threadName is the first words of the root message, within Discord's
// limit; a thread needs a name, so an empty text gets the fallback.
func threadName(text string) string {
	name := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(name) > maxThreadName {
		r := []rune(name)[:maxThreadName]
		name = string(r)
		if i := strings.LastIndexByte(name, ' '); i > maxThreadName/2 {
			name = name[:i]
		}
	}
	if name == "" {
		return fallbackThreadName
	}
	return name
}

// channel tells what channel id is: from the gateway state of a shard
// (GUILD_CREATE, THREAD_CREATE), what the adapter learned itself, or GET /channels/{id}.
// A lookup that fails reads as a plain channel, so a message is still
// answered, at worst with a thread of its own.
func (a *Adapter) channel(ctx context.Context, id string) chanInfo {
	for _, sh := range a.shards {
		st := sh.s.State
		if c, err := st.Channel(id); err == nil {
			st.RLock()
			info := infoOf(c)
			st.RUnlock()
			return info
		}
	}
	if info, ok := a.chans.Get(id); ok {
		return info
	}
	c, err := a.s.Channel(id, a.callOpts(ctx)...)
	if err != nil {
		a.log.Debug("channel lookup failed", "channel", id, "err", wrap("GET /channels/{id}", err))
		return chanInfo{}
	}
	info := infoOf(c)
	a.chans.Put(id, info)
	return info
}

func infoOf(c *discordgo.Channel) chanInfo {
	info := chanInfo{GuildID: c.GuildID, ParentID: c.ParentID, Name: c.Name, Thread: c.IsThread()}
	if c.Type == discordgo.ChannelTypeDM && len(c.Recipients) == 1 && c.Recipients[0] != nil {
		info.Recipient = c.Recipients[0].ID
	}
	return info
}

// restCode returns Discord's JSON error code and the HTTP status of err,
// zero where it has none.
func restCode(err error) (code, status int) {
	e, ok := errors.AsType[*discordgo.RESTError](err)
	if !ok {
		return 0, 0
	}
	if e.Message != nil {
		code = e.Message.Code
	}
	if e.Response != nil {
		status = e.Response.StatusCode
	}
	return code, status
}

// keyLock serializes work per key, giving up when ctx ends.
type keyLock struct {
	mu   sync.Mutex
	held map[string]chan struct{}
}

func (k *keyLock) lock(ctx context.Context, key string) (unlock func(), err error) {
	for {
		k.mu.Lock()
		ch, busy := k.held[key]
		if !busy {
			if k.held == nil {
				k.held = map[string]chan struct{}{}
			}
			ch = make(chan struct{})
			k.held[key] = ch
			k.mu.Unlock()
			return func() {
				k.mu.Lock()
				delete(k.held, key)
				k.mu.Unlock()
				close(ch)
			}, nil
		}
		k.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
