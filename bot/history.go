package bot

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/chat"
)

// Past conversations (the history_search tool, docs/history.md): the
// router decides which chats a turn's author may search where the turn
// runs (Where.HistoryChats, with each group chat's membership checked
// now), searches them through the store's index, keeps one author's
// messages when asked, and links each hit to its message on the platform.

// HistoryIndex is the conversations' full-text index as history_search
// reads it (both store engines implement it).
type HistoryIndex interface {
	// ChatsOf lists the chats on platform user ("platform:id") has
	// started a turn in, the most recent first, at most limit.
	ChatsOf(ctx context.Context, user, platform string, limit int) ([]ChatSeen, error)
	// SearchHistory finds messages in the conversations of q's chats.
	SearchHistory(ctx context.Context, q HistorySearch) ([]HistoryHit, error)
}

// ChatSeen is a chat a person has started a turn in: Thread names the
// chat (its ID is ""), Direct says it is their private chat with Parley.
type ChatSeen struct {
	Thread chat.Thread
	Direct bool
	Name   string // as the platform calls the chat; "" when unknown
	Last   time.Time
}

// HistorySearch is a search of the conversations held in Chats (each a
// chat: Platform, Space, Chat; never empty).
type HistorySearch struct {
	Query string
	Chats []chat.Thread
	Since time.Time
	// Parley keeps Parley's answers; Author people's messages whose
	// author's name has each of its words (any case).
	Parley bool
	Author string
	Limit  int
}

// HistoryHit is one message the index found.
type HistoryHit struct {
	Thread chat.Thread
	// Key is the inbox key of a person's message (what its adapter links
	// to); "" for Parley's answers.
	Key string
	At  time.Time
	// FromParley says Parley wrote it; else AuthorKey ("platform:id", ""
	// when not on record) and AuthorName say who.
	FromParley            bool
	AuthorKey, AuthorName string
	// Snippet is the part that matched, the matching words between **.
	Snippet string
}

// historyChats caps the chats one search covers beyond the current one:
// each group chat's membership is asked of the platform.
const historyChats = 50

var _ agent.History = (*Router)(nil)

// history is the router as a turn's History; nil (no interface holding a
// nil router) when there is no index.
func (r *Router) history() agent.History {
	if r.cfg.History == nil {
		return nil
	}
	return r
}

// SearchHistory searches the conversations c's author may see where the
// turn runs (agent.History).
func (r *Router) SearchHistory(ctx context.Context, c agent.Caller, q agent.HistoryQuery) ([]agent.HistoryHit, error) {
	if r.cfg.History == nil {
		return nil, errors.New("past conversations are not kept for searching here")
	}
	o := c.Origin
	where := Where{Thread: chat.Thread{Platform: o.Platform, Space: o.Space, Chat: o.Chat, ID: o.Thread},
		User: userOf(c.UserKey), Direct: o.Direct}
	h := HistoryReach{Index: r.cfg.History,
		// A group chat counts while the person is still in it and may
		// use Parley there (reach.go).
		Member: func(ctx context.Context, t chat.Thread, u chat.User) bool {
			return r.mayCall(ctx, t, u, false, false) == nil
		}}
	if linker, ok := r.adapters[o.Platform].(chat.MessageLinker); ok {
		h.Link = linker.MessageLink
	}
	return h.Search(ctx, where, c.UserName, q)
}

// HistoryReach is history_search's search, given what it needs of the
// platform: whether a person is (still) in a group chat, and links.
type HistoryReach struct {
	Index HistoryIndex
	// Member reports whether u is in t's chat and may use Parley there.
	Member func(ctx context.Context, t chat.Thread, u chat.User) bool
	// Link is the platform's link to a message (chat.MessageLinker); nil:
	// none.
	Link func(ctx context.Context, t chat.Thread, key string) string
}

// Search finds q in the conversations where's person (called name) may
// see there: Where.HistoryChats of the chats they have written in, each
// group chat among them only while Member says so; one author's messages
// when q.Who says whose.
func (h HistoryReach) Search(ctx context.Context, where Where, name string, q agent.HistoryQuery) ([]agent.HistoryHit, error) {
	var seen []ChatSeen
	if where.Direct {
		var err error
		if seen, err = h.Index.ChatsOf(ctx, where.User.Key(), where.Thread.Platform, historyChats); err != nil {
			return nil, err
		}
	}
	var chats []chat.Thread
	names := map[chat.Thread]string{}
	for _, s := range where.HistoryChats(seen) {
		if !s.Direct && (h.Member == nil || !h.Member(ctx, s.Thread, where.User)) {
			continue
		}
		chats, names[s.Thread] = append(chats, s.Thread), s.Name
		if s.Direct && s.Name == "" {
			names[s.Thread] = "your private chat with Parley"
		}
	}
	if len(chats) == 0 {
		return nil, nil
	}
	search := HistorySearch{Query: q.Query, Chats: chats, Since: q.Since, Limit: q.Limit}
	switch who := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(q.Who), "@")); strings.ToLower(who) {
	case "":
	case "parley":
		search.Parley = true
	case "me":
		if name == "" {
			return nil, errors.New(`who: "me" cannot be told apart here (your name is not known); leave who out`)
		}
		search.Author = name
	default:
		search.Author = who
	}
	hits, err := h.Index.SearchHistory(ctx, search)
	if err != nil {
		return nil, err
	}
	here := chat.Thread{Platform: where.Thread.Platform, Space: where.Thread.Space, Chat: where.Thread.Chat}
	var out []agent.HistoryHit
	for _, hit := range hits {
		chatOf := chat.Thread{Platform: hit.Thread.Platform, Space: hit.Thread.Space, Chat: hit.Thread.Chat}
		in := names[chatOf]
		switch {
		case chatOf == here:
			in = "this chat"
		case in == "":
			in = hit.Thread.Chat
		}
		found := agent.HistoryHit{At: hit.At, Author: hit.author(), Where: in, Snippet: hit.Snippet}
		if h.Link != nil {
			found.Link = h.Link(ctx, hit.Thread, hit.Key)
		}
		out = append(out, found)
	}
	return out, nil
}

// author is who wrote h, in words.
func (h HistoryHit) author() string {
	switch {
	case h.FromParley:
		return "Parley"
	case h.AuthorName != "":
		return h.AuthorName
	case h.AuthorKey != "":
		return h.AuthorKey
	}
	return "someone"
}
