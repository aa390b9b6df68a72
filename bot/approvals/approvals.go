// Package approvals asks people to approve risky tool calls with buttons
// and takes their clicks: the record in the store is the truth, a waiter
// per approval is the only state in memory, and a decision no turn waits
// for goes to the Resumer the approvals were built with.
package approvals

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/clock"
	"github.com/parleybot/parley/internal/randid"
)

// Approval statuses, as stored.
const (
	StatusPending  = "pending"
	StatusApproved = "approved"
	StatusDenied   = "denied"
	StatusExpired  = "expired"
)

// ApprovalRecord is one tool call waiting for, or given, a person's
// decision (docs/architecture.md, Approvals: records, not goroutines).
type Record struct {
	ID         string // opaque, unguessable; the only thing a button carries
	SessionID  string
	ToolCallID string
	ToolName   string
	Summary    string // what will happen if approved; written by the model
	// Mandatory: only a configured approver may approve (shell, an
	// untrusted MCP server); the requester may still deny.
	Mandatory bool
	// Private: only the requester decides, in messages only they see
	// (agent.ApprovalRequest.Private: the call may carry their data).
	Private bool
	// Risks are what the tool found risky about the call; the tool's own
	// words, not the model's.
	Risks []string
	// Requester is the user key ("platform:id") of the person whose turn
	// asked for the call; RequesterName their display name.
	Requester     string
	RequesterName string
	// Approvers are the user keys allowed to approve: the approvers
	// configured when it was asked, and the requester unless Mandatory.
	// The requester may always deny.
	Approvers []string
	Status    string
	// DecidedBy is the decider's user key, empty while pending and for an
	// expiry; DecidedByName their display name.
	DecidedBy     string
	DecidedByName string
	Refs          []chat.MessageRef // the message showing the buttons
	ExpiresAt     time.Time
	CreatedAt     time.Time
	DecidedAt     time.Time // zero while pending
}

// RequesterUser is the person whose turn asked for the call.
func (r Record) RequesterUser() chat.User {
	platform, id, _ := strings.Cut(r.Requester, ":")
	return chat.User{Platform: platform, ID: id, Name: r.RequesterName}
}

// Decision is the record's outcome in the agent's terms; the zero Decision
// (not approved) while pending.
func (r Record) Decision() agent.Decision {
	by := r.DecidedByName
	if by == "" {
		by = r.DecidedBy
	}
	switch r.Status {
	case StatusApproved:
		return agent.Decision{Approved: true, By: by, Summary: r.Summary}
	case StatusDenied:
		return agent.Decision{By: by}
	case StatusExpired:
		return agent.Decision{Expired: true}
	}
	return agent.Decision{}
}

// ApprovalStore keeps approvals durably; store.DB implements it.
type Store interface {
	// CreateApproval records a pending approval and returns the stored
	// record. When the tool call (SessionID, ToolCallID) already has one, a
	// re-run after a crash, it returns that one unchanged and created false.
	CreateApproval(ctx context.Context, rec Record) (stored Record, created bool, err error)
	// Approval returns the approval id; ok is false when there is none.
	Approval(ctx context.Context, id string) (rec Record, ok bool, err error)
	// DecideApproval moves a pending approval to status (approved, denied,
	// expired) in one conditional update and reports whether this call
	// did: of concurrent deciders exactly one wins. An approval or denial
	// at or after the deadline loses. by is zero for an expiry.
	DecideApproval(ctx context.Context, id, status string, by chat.User, at time.Time) (won bool, err error)
	// SetApprovalRefs records the messages showing the approval.
	SetApprovalRefs(ctx context.Context, id string, refs []chat.MessageRef) error
	// ExpiredApprovals lists pending approvals whose deadline is ≤ now.
	ExpiredApprovals(ctx context.Context, now time.Time) ([]Record, error)
	// SessionApprovals lists a session's approvals, oldest first.
	SessionApprovals(ctx context.Context, sessionID string) ([]Record, error)
	// DecidedApprovals lists approvals decided at or after since.
	DecidedApprovals(ctx context.Context, since time.Time) ([]Record, error)
	// UndecidedApprovals lists the approvals of every session still waiting
	// for a decision, oldest first (the console's).
	UndecidedApprovals(ctx context.Context) ([]Record, error)
	// ApprovalHistory lists the decided and expired approvals f lets
	// through, newest decision first, at most limit of them: f and limit
	// must pass HistoryFilter.Check.
	ApprovalHistory(ctx context.Context, f HistoryFilter, limit int) ([]Record, error)
}

// DefaultApprovalExpiry is how long an approval waits for a decision.
const DefaultExpiry = 10 * time.Minute

// maxApprovalID bounds approval ids so that "a:<id>" fits every platform's
// button payload with room to spare.
const maxApprovalID = 32

// SessionLookup finds the conversation a session lives in, where its
// approval messages are posted.
type SessionLookup interface {
	SessionThread(ctx context.Context, id string) (chat.Thread, error)
}

// Resumer continues a session whose approval was decided (or expired)
// while no turn waited for it, as after a restart. It runs on the click or
// sweep that decided, so it hands off rather than run the turn.
type Resumer interface {
	ResumeDecided(ctx context.Context, rec Record)
}

// Button payload prefixes of approval messages: a prefix and the
// approval's id (the router's action table routes them here).
const (
	ApproveData = "a:" // approve an approval
	DenyData    = "d:" // deny an approval
)

// Config configures Approvals. Store, Sessions and Outbound are
// required.
type Config struct {
	Store    Store
	Sessions SessionLookup
	// Outbound shows the approval messages and answers the clickers.
	Outbound *outbound.Outbound
	// Approvers are user keys ("telegram:42") who may decide any approval;
	// a mandatory one (shell, an untrusted MCP server) only they may
	// approve. The core's default is access.admins.
	Approvers []string
	// Expiry is how long an approval waits; DefaultApprovalExpiry if zero.
	Expiry time.Duration
	// Resumer takes a decision no Approve call waits for (the router);
	// nil: such decisions are recorded and shown, nothing more.
	Resumer Resumer
	// Decided, when set, is told of every decision as it is made — by a
	// click, from the console (via "console"), or by expiry — for the
	// audit log.
	Decided func(ctx context.Context, rec Record, via string)
	// Now and Sleep are the clock (defaults: time.Now and a timer). Sleep
	// returns nil once d has passed, or ctx's error. Outbound has its own,
	// which should be the same.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// NewID returns a fresh approval id: unguessable, at most 32 of
	// [A-Za-z0-9_-]. Default: 128 bits from crypto/rand, in hex.
	NewID func() string
	// PollEvery, when set, has a waiting Approve read its record that
	// often: replicas sharing a store see a click another replica took
	// (router_shared.go). Zero: only this process's clicks and expiry.
	PollEvery time.Duration
	Logger    *slog.Logger
}

// Approvals asks people to approve tool calls with buttons in the
// conversation, and takes their clicks. It implements agent.Approver.
//
// The record in the store is the truth; the only in-memory state is a
// waiter per approval that an Approve call is blocked on. A decision goes
// to that waiter, or, when there is none (the process restarted since the
// approval was asked), to the Resumer: exactly one of the two.
type Approvals struct {
	cfg       Config
	approvers map[string]bool

	// mu guards waiters, and is held across the store call that decides
	// an approval and across the one that creates (or finds) it, so that
	// "decide, then find the waiter" and "find the record, then wait" are
	// atomic with respect to each other: a decision is handed on exactly
	// once. Those store calls are single short writes.
	mu      sync.Mutex
	waiters map[string]chan agent.Decision
	// posting holds, per approval whose message is being sent, a channel
	// closed once its ref is recorded: a click can land in between.
	posting map[string]chan struct{}
}

var _ agent.Approver = (*Approvals)(nil)

// New returns Approvals configured by cfg.
func New(cfg Config) (*Approvals, error) {
	if cfg.Store == nil || cfg.Sessions == nil || cfg.Outbound == nil {
		return nil, errors.New("approvals: Store, Sessions and Outbound are required")
	}
	if cfg.Expiry <= 0 {
		cfg.Expiry = DefaultExpiry
	}
	cfg.Now, cfg.Sleep = clock.Or(cfg.Now, cfg.Sleep)
	if cfg.NewID == nil {
		cfg.NewID = randid.New
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	a := &Approvals{cfg: cfg, approvers: map[string]bool{}, waiters: map[string]chan agent.Decision{}, posting: map[string]chan struct{}{}}
	for _, k := range cfg.Approvers {
		if k != "" {
			a.approvers[k] = true
		}
	}
	return a, nil
}

// Approve posts an approval message with Approve / Deny buttons in the
// session's conversation and waits for a decision or the expiry. When ctx
// ends first it returns ctx's error and the approval stays pending: its
// buttons still work, and a later decision goes to the Resumer.
// Asking again about a tool call that already has an approval (a re-run
// after a restart) reuses it: a decided one returns its decision at once, a
// pending one is waited for without posting a second message.
func (a *Approvals) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Decision, error) {
	if req.SessionID == "" || req.Call.ID == "" {
		return agent.Decision{}, errors.New("approvals: request without session or tool call id")
	}
	thread, err := a.cfg.Sessions.SessionThread(ctx, req.SessionID)
	if err != nil {
		return agent.Decision{}, fmt.Errorf("approvals: conversation of session %s: %w", req.SessionID, err)
	}
	ad, ok := a.cfg.Outbound.Adapter(thread.Platform)
	if !ok {
		return agent.Decision{}, fmt.Errorf("approvals: no adapter for platform %q", thread.Platform)
	}
	if !ad.Capabilities().Buttons {
		return agent.Decision{}, fmt.Errorf("approvals: %s cannot show approval buttons", thread.Platform)
	}
	id := a.cfg.NewID()
	if !validApprovalID(id) {
		return agent.Decision{}, fmt.Errorf("approvals: generated id %q is not a valid approval id", id)
	}
	now := a.cfg.Now()
	rec := Record{
		ID:            id,
		SessionID:     req.SessionID,
		ToolCallID:    req.Call.ID,
		ToolName:      req.Call.Name,
		Summary:       req.Summary,
		Mandatory:     req.Mandatory,
		Private:       req.Private,
		Risks:         req.Risks,
		Requester:     req.Caller.UserKey,
		RequesterName: req.Caller.UserName,
		Approvers:     a.approverList(req),
		Status:        StatusPending,
		ExpiresAt:     now.Add(a.cfg.Expiry),
		CreatedAt:     now,
	}
	if len(rec.Approvers) == 0 {
		// Refused before anything is posted: the model is told, and the
		// operator finds the key in the log.
		return agent.Decision{}, errors.New("approvals: no one may approve this: no approver is configured (tools.approval.approvers, default access.admins)")
	}
	rec, ch, err := a.open(ctx, rec)
	if err != nil {
		return agent.Decision{}, err
	}
	if ch == nil {
		return rec.Decision(), nil
	}
	defer a.unregister(rec.ID, ch)
	if len(rec.Refs) == 0 {
		if err := a.post(ctx, ad, thread, &rec); err != nil {
			// Nobody can decide an approval whose message is not known:
			// close it rather than leave it to expire into a resume.
			if _, serr := a.expire(context.WithoutCancel(ctx), rec); serr != nil {
				a.cfg.Logger.Error("close unposted approval", "approval", rec.ID, "err", serr)
			}
			return agent.Decision{}, err
		}
	}
	return a.wait(ctx, rec, ch)
}

// approverList is who may approve: the requester (unless the approval is
// mandatory) followed by the configured approvers, without repeats.
// A private approval is the requester's alone.
func (a *Approvals) approverList(req agent.ApprovalRequest) []string {
	requester := req.Caller.UserKey
	var out []string
	if requester != "" && !req.Mandatory {
		out = append(out, requester)
	}
	if req.Private {
		return out
	}
	for _, k := range a.cfg.Approvers {
		if k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// open creates the approval (or finds the tool call's existing one) and,
// while it is pending, registers a waiter for it. ch is nil when the
// approval is already decided.
func (a *Approvals) open(ctx context.Context, rec Record) (_ Record, ch chan agent.Decision, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	rec, _, err = a.cfg.Store.CreateApproval(ctx, rec)
	if err != nil {
		return rec, nil, fmt.Errorf("approvals: %w", err)
	}
	if rec.Status != StatusPending {
		return rec, nil, nil
	}
	if _, busy := a.waiters[rec.ID]; busy {
		return rec, nil, fmt.Errorf("approvals: approval %s is already being waited for", rec.ID)
	}
	// Buffered: the decider never blocks on a waiter that is just leaving.
	ch = make(chan agent.Decision, 1)
	a.waiters[rec.ID] = ch
	return rec, ch, nil
}

// unregister removes ch as the waiter of id if it still is, and reports
// whether a decider took it instead: then that decider's decision is on
// its way to ch.
func (a *Approvals) unregister(id string, ch chan agent.Decision) (taken bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.waiters[id] == ch {
		delete(a.waiters, id)
		return false
	}
	return true
}

// post sends the approval's messages (the summary first when it needs
// messages of its own, then the one with the buttons) and records where
// they are.
func (a *Approvals) post(ctx context.Context, ad chat.Adapter, thread chat.Thread, rec *Record) error {
	texts := approvalMessages(*rec, a.cfg.Expiry, ad.Capabilities())
	buttons := []chat.Button{
		{Label: "Approve", Style: chat.ButtonPrimary, Data: ApproveData + rec.ID},
		{Label: "Deny", Style: chat.ButtonDanger, Data: DenyData + rec.ID},
	}
	posted := make(chan struct{})
	a.mu.Lock()
	a.posting[rec.ID] = posted
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.posting, rec.ID)
		a.mu.Unlock()
		close(posted)
	}()
	var refs []chat.MessageRef
	for i, text := range texts {
		out := chat.Out{Text: text}
		if i == len(texts)-1 {
			out.Buttons = buttons
		}
		if rec.Private {
			// Only the requester sees it; a click is known by its id and
			// its clicker (HandleAction), not by the message.
			if err := a.cfg.Outbound.Private(ctx, thread, rec.RequesterUser(), out); err != nil {
				return fmt.Errorf("approvals: show private approval %s to its requester (message %d of %d): %w", rec.ID, i+1, len(texts), err)
			}
			continue
		}
		ref, err := a.cfg.Outbound.Post(ctx, thread, out)
		if err != nil {
			return fmt.Errorf("approvals: post approval %s (message %d of %d): %w", rec.ID, i+1, len(texts), err)
		}
		refs = append(refs, ref)
	}
	rec.Refs = refs
	if err := a.cfg.Store.SetApprovalRefs(ctx, rec.ID, rec.Refs); err != nil {
		return fmt.Errorf("approvals: %w", err)
	}
	return nil
}

// wait blocks until the approval is decided, expires or ctx ends.
func (a *Approvals) wait(ctx context.Context, rec Record, ch chan agent.Decision) (agent.Decision, error) {
	sleepCtx, stop := context.WithCancel(ctx)
	defer stop()
	due := make(chan struct{})
	go func() {
		if a.cfg.Sleep(sleepCtx, rec.ExpiresAt.Sub(a.cfg.Now())) == nil {
			close(due)
		}
	}()
	poll := a.polls(sleepCtx)
	for {
		select {
		case d := <-ch:
			return d, nil
		case <-poll:
			stored, found, err := a.cfg.Store.Approval(ctx, rec.ID)
			if err != nil || !found || stored.Status == StatusPending {
				continue // read again at the next poll; the expiry still holds
			}
			if d, ok, err := a.decidedElsewhere(ctx, rec.ID, ch); ok || err != nil {
				return d, err
			}
		case <-due:
			due = nil
			// The expiry and a click may race: whichever wins hands its
			// decision to ch, which the next turn of the loop reads.
			won, err := a.expire(context.WithoutCancel(ctx), rec)
			if err != nil {
				return agent.Decision{}, err
			}
			if !won {
				if d, ok, err := a.decidedElsewhere(ctx, rec.ID, ch); ok || err != nil {
					return d, err
				}
			}
		case <-ctx.Done():
			if a.unregister(rec.ID, ch) {
				// Decided at the same moment. The decider is showing it and
				// then hands it here, not to the Resumer: take
				// it, or no one would act on it.
				return <-ch, nil
			}
			return agent.Decision{}, ctx.Err()
		}
	}
}

// polls ticks every PollEvery until ctx ends; nil (never) without
// PollEvery.
func (a *Approvals) polls(ctx context.Context) <-chan struct{} {
	if a.cfg.PollEvery <= 0 {
		return nil
	}
	tick := make(chan struct{})
	go func() {
		for a.cfg.Sleep(ctx, a.cfg.PollEvery) == nil {
			select {
			case tick <- struct{}{}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return tick
}

// decidedElsewhere handles an expiry that lost without a decision reaching
// ch: the approval was decided where this process's waiters are not seen
// (another process on the same database), and the stored decision is
// returned. ok is false when a decider did take the waiter: ch has, or is
// about to have, its decision.
func (a *Approvals) decidedElsewhere(ctx context.Context, id string, ch chan agent.Decision) (_ agent.Decision, ok bool, _ error) {
	a.mu.Lock()
	mine := a.waiters[id] == ch
	if mine {
		delete(a.waiters, id)
	}
	a.mu.Unlock()
	if !mine {
		return agent.Decision{}, false, nil
	}
	rec, found, err := a.cfg.Store.Approval(ctx, id)
	if err != nil {
		return agent.Decision{}, false, fmt.Errorf("approvals: %w", err)
	}
	if !found {
		return agent.Decision{}, false, fmt.Errorf("approvals: approval %s vanished while waited for", id)
	}
	return rec.Decision(), true, nil
}

// validApprovalID reports whether id is a well-formed approval id.
func validApprovalID(id string) bool {
	if id == "" || len(id) > maxApprovalID {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
