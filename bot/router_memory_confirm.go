package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/randid"
)

// Memory a tainted turn proposes (agent.Caller.Tainted: it read a web page,
// a tool's result or another person's message) is not saved until its
// owner says so: they get the exact text privately, with Save and Discard
// buttons only they can press, valid for a day. The
// buttons carry a one-time token; the edit waits in the KV store under it.

// memoryConfirmTTL bounds how long a Save button stays valid: as long as
// a private message waits for a person who has no private chat with
// Parley yet (outbound.HeldFor), so that a held proposal still works when
// it arrives.
const memoryConfirmTTL = outbound.HeldFor

// pendingMemory is an edit waiting for its owner's decision.
type pendingMemory struct {
	Owner string           `json:"owner"` // User.Key
	Edit  agent.MemoryEdit `json:"edit"`
	oneTime
}

// oneTime is what the record of a one-time button (Save / Discard of a
// memory entry or a team note) keeps besides its payload: valid once,
// before Expires. Embedded, its fields are the record's own in JSON.
type oneTime struct {
	Expires time.Time `json:"expires"`
	Used    bool      `json:"used,omitempty"`
}

func (o *oneTime) once() *oneTime { return o }

// buttonRecord is a one-time button's record.
type buttonRecord interface{ once() *oneTime }

// keepButton stores p, valid from now for memoryConfirmTTL, under a new
// one-time token, and returns the token its buttons carry: the payload
// holds nothing else.
func (r *Router) keepButton(ctx context.Context, key func(token string) string, p buttonRecord) (string, error) {
	token := randid.New()
	p.once().Expires = r.cfg.Now().Add(memoryConfirmTTL)
	rec, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("encode button record: %w", err)
	}
	if err := r.cfg.KV.Set(ctx, key(token), string(rec)); err != nil {
		return "", err
	}
	return token, nil
}

// openButton reads the record of a one-time button under key into p and
// reports whether it may still be acted on: it is there, readable, not
// used and not expired. A forged token finds nothing.
func (r *Router) openButton(ctx context.Context, key string, p buttonRecord) (bool, error) {
	v, ok, err := r.cfg.KV.Get(ctx, key)
	if err != nil {
		return false, err
	}
	if !ok || json.Unmarshal([]byte(v), p) != nil {
		return false, nil
	}
	o := p.once()
	return !o.Used && r.cfg.Now().Before(o.Expires), nil
}

// saveOrDiscard reads a Save / Discard button's payload: which it is, and
// its token.
func saveOrDiscard(data, savePrefix, discardPrefix string) (save bool, token string) {
	if token, save = strings.CutPrefix(data, savePrefix); save {
		return true, token
	}
	return false, strings.TrimPrefix(data, discardPrefix)
}

// spendButton marks the record used before its click is acted on, so that
// a replayed click finds it spent.
func (r *Router) spendButton(ctx context.Context, key string, p buttonRecord) error {
	p.once().Used = true
	used, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encode button record: %w", err)
	}
	return r.cfg.KV.Set(ctx, key, string(used))
}

func memoryConfirmKey(token string) string { return "memsave:" + token }

var _ agent.MemoryConfirmer = (*Router)(nil)

// ProposeMemory asks c's person, privately, to save or discard e.
func (r *Router) ProposeMemory(ctx context.Context, c agent.Caller, e agent.MemoryEdit) error {
	info, err := r.cfg.Sessions.Session(ctx, c.SessionID)
	if err != nil {
		return fmt.Errorf("conversation of session %s: %w", c.SessionID, err)
	}
	platform, id, _ := strings.Cut(c.UserKey, ":")
	owner := chat.User{Platform: platform, ID: id, Name: c.UserName}
	token, err := r.keepButton(ctx, memoryConfirmKey, &pendingMemory{Owner: c.UserKey, Edit: e})
	if err != nil {
		return fmt.Errorf("memory proposal: %w", err)
	}
	return r.cfg.Outbound.Private(ctx, info.Thread, owner, chat.Out{
		Text: memoryProposalText(e),
		Buttons: []chat.Button{
			{Label: "Save", Style: chat.ButtonPrimary, Data: saveMemoryData + token},
			{Label: "Discard", Style: chat.ButtonDanger, Data: discardMemoryData + token},
		},
	})
}

// memoryProposalText shows the entry exactly, in a code block where no
// Markdown applies and nothing pings.
func memoryProposalText(e agent.MemoryEdit) string {
	block, _ := format.CodeBlock(e.Content, -1)
	var b strings.Builder
	about := "about you"
	if e.Target == agent.Team {
		about = "as a team note for everyone in the place where you asked"
	}
	b.WriteString("A conversation that read content from outside (a web page, a tool's result or someone else's message) " +
		"asked me to remember this " + about + ". I keep it only if you save it:\n")
	b.WriteString(block)
	if e.Action == "replace" {
		old, _ := format.CodeBlock(e.OldText, -1)
		b.WriteString("\nIt replaces the entry that contains:\n" + old)
	}
	fmt.Fprintf(&b, "\n(%s, expires in %s)", e.Target, format.Duration(memoryConfirmTTL))
	return b.String()
}

// memoryClick takes Save or Discard: only the owner, only once, only
// before it expires.
func (r *Router) memoryClick(ctx context.Context, a chat.Action) error {
	save, token := saveOrDiscard(a.Data, saveMemoryData, discardMemoryData)
	key := memoryConfirmKey(token)
	var p pendingMemory
	valid, err := r.openButton(ctx, key, &p)
	if err != nil {
		return err
	}
	if !valid {
		return r.cfg.Outbound.Tell(ctx, a, msgButtonInvalid)
	}
	if p.Owner != a.User.Key() {
		return r.cfg.Outbound.Tell(ctx, a, "Only the person this is about can save it.")
	}
	// Who writes team notes is decided when the note is saved: an author
	// who no longer may (memory.team.writers changed) cannot save it.
	if p.Edit.Target == agent.Team && save && (r.cfg.Team == nil || !r.cfg.Team.Writers.May(r.cfg.Access, p.Owner)) {
		return r.cfg.Outbound.Tell(ctx, a, "You no longer write team notes here: ask in the conversation, and an admin confirms it.")
	}
	if err := r.spendButton(ctx, key, &p); err != nil {
		return err
	}
	if p.Edit.Target == agent.Team {
		return r.teamSaved(ctx, a, p.Owner, p.Edit, save)
	}
	// Which list, never the entry: it is the person's.
	decided := AuditEntry{Actor: a.User.Key(), Action: "memory.discard", Target: p.Owner, Detail: string(p.Edit.Target), Via: "chat"}
	if !save {
		r.audit(ctx, decided)
		return r.cfg.Outbound.Tell(ctx, a, "Discarded: I did not keep it.")
	}
	_, _, err = agent.ApplyMemoryEdit(ctx, r.cfg.Runner.Memory, p.Owner, r.cfg.Commands.limits, p.Edit)
	if err != nil {
		return r.cfg.Outbound.Tell(ctx, a, "I could not save it: "+err.Error())
	}
	decided.Action = "memory.confirm"
	r.audit(ctx, decided)
	return r.cfg.Outbound.Tell(ctx, a, "Saved. See /memory.")
}
