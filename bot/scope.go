package bot

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parleybot/parley/chat"
)

// Scopes (docs/architecture.md, Scopes): everything Parley keeps beyond one
// conversation — documents, skills, memos, reminders — belongs to a scope
// and never shows outside it. This is the one place a scope is derived
// from where a message was written; nothing re-derives it.

// ScopeKind says whose a scope is.
type ScopeKind string

const (
	// ScopeOperator is what the operator added (CLI, configured folders):
	// visible to everyone this Parley serves.
	ScopeOperator ScopeKind = "operator"
	// ScopeSpace is a Slack workspace, a Discord server, a Telegram group:
	// what was added there is visible only there.
	ScopeSpace ScopeKind = "space"
	// ScopePerson is a person's private chats: what they added in a DM is
	// visible only to them.
	ScopePerson ScopeKind = "person"
)

// Scope names one scope. Key is its stored form: "operator",
// "space:<platform>:<id>" or "person:<platform>:<user id>"; what a named
// agent learnt there, "agent:<name>:" before it.
type Scope struct {
	Kind ScopeKind
	ID   string // "" for the operator; platform:id otherwise
	// Agent is the named agent whose skills and self-memo of the scope
	// these are (Of); "" for documents, reminders and the default agent's.
	Agent string
}

// agentPrefix starts the key of a named agent's part of a scope.
const agentPrefix = "agent:"

// Key is the scope's stored form.
func (s Scope) Key() string {
	key := string(ScopeOperator)
	if s.Kind != ScopeOperator {
		key = string(s.Kind) + ":" + s.ID
	}
	if s.Agent != "" {
		return agentPrefix + s.Agent + ":" + key
	}
	return key
}

// Of is the scope as agent learns in it: an agent's skills and self-memo
// are its own, apart from another's in the same place (docs/agents.md).
// The default agent's are the scope's own, under the keys they had before
// there were agents.
func (s Scope) Of(agent string) Scope {
	s.Agent = agent
	if agent == DefaultAgent {
		s.Agent = ""
	}
	return s
}

// OperatorScope is the operator's scope.
func OperatorScope() Scope { return Scope{Kind: ScopeOperator} }

// Where is where a message was written, as scopes need it: the
// conversation, the person, and whether it is their private chat with
// Parley (the adapter's Message.Direct / Command.Direct).
type Where struct {
	Thread chat.Thread
	User   chat.User
	Direct bool
}

// space is the space the conversation is in, if any: the workspace or
// server (Thread.Space); in a Telegram group, which has no Space, the group
// itself. A private chat outside any workspace (Telegram, a Discord DM) is
// in none.
func (w Where) space() (Scope, bool) {
	switch {
	case w.Thread.Space != "":
		return Scope{Kind: ScopeSpace, ID: w.Thread.Platform + ":" + w.Thread.Space}, true
	case !w.Direct && w.Thread.Chat != "":
		return Scope{Kind: ScopeSpace, ID: w.Thread.Platform + ":" + w.Thread.Chat}, true
	}
	return Scope{}, false
}

// Home is the scope what is created here belongs to: the person's own in a
// private chat, else the space's.
func (w Where) Home() Scope {
	if s, ok := w.space(); ok && !w.Direct {
		return s
	}
	return Scope{Kind: ScopePerson, ID: w.User.Key()}
}

// Team is the place whose team notes a turn here sees and writes: the
// space, outside a direct chat. A direct chat has none, even one inside a
// workspace: its notes would be one person's, which is what their own
// memory is for (docs/team-notes.md).
func (w Where) Team() (Scope, bool) {
	if w.Direct {
		return Scope{}, false
	}
	return w.space()
}

// Visible are the scopes a lookup here covers: the operator's, the
// space's, and in a private chat the person's. Never another space's,
// never another person's.
func (w Where) Visible() []Scope {
	out := []Scope{OperatorScope()}
	if s, ok := w.space(); ok {
		out = append(out, s)
	}
	if w.Direct {
		out = append(out, Scope{Kind: ScopePerson, ID: w.User.Key()})
	}
	return out
}

// VisibleKeys are Visible's stored forms, for a query's filter: applied
// inside the query, before any ranking.
func (w Where) VisibleKeys() []string {
	v := w.Visible()
	keys := make([]string, len(v))
	for i, s := range v {
		keys[i] = s.Key()
	}
	return keys
}

// LearnedKeys are the stored forms of the scopes whose skills and
// self-memo a turn of agent sees here: Visible, as agent learns in them.
func (w Where) LearnedKeys(agent string) []string {
	v := w.Visible()
	keys := make([]string, len(v))
	for i, s := range v {
		keys[i] = s.Of(agent).Key()
	}
	return keys
}

// SearchedKeys are the stored forms of the visible scopes an agent's
// kb_search covers here: those only names, each by its kind ("operator",
// "space", "person") or its key; only nil, all of them. Only ever
// narrows: a scope not visible here is never searched, whatever only
// says (docs/agents.md, Switches).
func (w Where) SearchedKeys(only []string) []string {
	keys := w.VisibleKeys()
	if only == nil {
		return keys
	}
	out := []string{}
	for i, s := range w.Visible() {
		if slices.Contains(only, string(s.Kind)) || slices.Contains(only, keys[i]) {
			out = append(out, keys[i])
		}
	}
	return out
}

// HistoryChats are the chats whose conversations history_search covers
// asked here, of seen, the chats the person has started turns in. In a
// group chat, only that chat: everyone there reads the answer, so nothing
// from elsewhere comes into it. In the person's private chat, the private
// chats and group chats of seen on this platform — within the private
// chat's workspace, where it has one (Slack) — and this chat. Never
// another person's private chat (seen holds only the person's own), never
// another platform. The caller checks that the person is still in each
// group chat.
func (w Where) HistoryChats(seen []ChatSeen) []ChatSeen {
	here := ChatSeen{Thread: chat.Thread{Platform: w.Thread.Platform, Space: w.Thread.Space, Chat: w.Thread.Chat}, Direct: w.Direct}
	if here.Thread.Chat == "" {
		return nil
	}
	out := []ChatSeen{here}
	if !w.Direct {
		return out
	}
	for _, s := range seen {
		t := s.Thread
		if t.Platform != here.Thread.Platform || t.Chat == "" || t == here.Thread ||
			(here.Thread.Space != "" && t.Space != here.Thread.Space) {
			continue
		}
		s.Thread.ID = ""
		out = append(out, s)
	}
	return out
}

// ParseScope reads a scope's stored form, as an operator writes it
// (`parley kb add --scope space:slack:T012`, `parley reflect --scope
// agent:eng:space:slack:T012`).
func ParseScope(key string) (Scope, error) {
	if rest, ok := strings.CutPrefix(key, agentPrefix); ok {
		agent, base, _ := strings.Cut(rest, ":")
		s, err := ParseScope(base)
		if err != nil || agent == "" || s.Agent != "" {
			return Scope{}, fmt.Errorf("scope %q: want agent:<name>: before operator, space:<platform>:<id> or person:<platform>:<user id>", key)
		}
		return s.Of(agent), nil
	}
	if key == string(ScopeOperator) {
		return OperatorScope(), nil
	}
	kind, id, _ := strings.Cut(key, ":")
	platform, rest, _ := strings.Cut(id, ":")
	if (kind != string(ScopeSpace) && kind != string(ScopePerson)) || platform == "" || rest == "" {
		return Scope{}, fmt.Errorf("scope %q: want operator, space:<platform>:<id> or person:<platform>:<user id>", key)
	}
	return Scope{Kind: ScopeKind(kind), ID: id}, nil
}
