package bot

import (
	"fmt"
	"github.com/parleybot/parley/chat"
	"strings"
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
// "space:<platform>:<id>" or "person:<platform>:<user id>".
type Scope struct {
	Kind ScopeKind
	ID   string // "" for the operator; platform:id otherwise
}

// Key is the scope's stored form.
func (s Scope) Key() string {
	if s.Kind == ScopeOperator {
		return string(ScopeOperator)
	}
	return string(s.Kind) + ":" + s.ID
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

// ParseScope reads a scope's stored form, as an operator writes it
// (`parley kb add --scope space:slack:T012`).
func ParseScope(key string) (Scope, error) {
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
