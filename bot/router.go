// Package bot is Parley's chat core: the router that turns platform events
// into turns of the agent (the inbox, access, sessions, queues, steering,
// crash recovery, commands), the core that assembles it with delivery and
// approvals, and what it keeps beyond a conversation (scopes, reminders,
// tasks, learning signals).
package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

// ReplyFactory opens the outbound side of one turn: the Reply that shows
// the answer to the event inboxKey (delivery: pacing, outbox, splitting).
type ReplyFactory func(ctx context.Context, a chat.Adapter, inboxKey, sessionID string, t chat.Thread, u chat.User, replyTo string) (outbound.Reply, error)

// RouterConfig wires a Router.
type RouterConfig struct {
	Sessions SessionMap
	Inbox    Inbox
	KV       chat.KV
	Runner   *agent.Runner
	// Agents choose, per conversation, the runner of a turn (agents.go);
	// nil: Runner answers everywhere.
	Agents   *Agents
	Commands *SharedCommands // the shared commands (/memory, /new, /help)
	Access   Access
	// Team keeps the places' team notes and says who writes them
	// (team.go); nil: none.
	Team *TeamConfig
	// History is the conversations' index history_search reads
	// (history.go); nil: the tool finds nothing.
	History HistoryIndex
	// Outbound shows everything; nil: one over the adapters without an
	// outbox, which can post but not deliver replies (tests with Reply).
	Outbound *outbound.Outbound
	// Reply opens each turn's reply; nil: Outbound.Begin.
	Reply ReplyFactory
	// Reminders has the router deliver due reminders and run schedules
	// (timekeeper.go); nil: none.
	Reminders *RemindersConfig
	// Approvals configures the approvals the router asks for its turns'
	// risky tool calls, whose clicks it takes and whose decisions no turn
	// waits for it resumes (Store, Approvers, Expiry, the clock, PollEvery;
	// the rest is the router's). Nil: tools that need approval are
	// refused and every approval click is answered "no longer valid".
	Approvals *approvals.Config
	// MaxConcurrent bounds the turns running at once, across sessions;
	// waiting turns start in arrival order. Default DefaultMaxConcurrent.
	MaxConcurrent int
	Logger        *slog.Logger
	// Model is the model /status names.
	Model string
	// Limits bound what one person can ask (quota.go); zero: none.
	Limits Limits
	// Knowledge is the knowledge base /kb manages; nil: none.
	Knowledge Knowledge
	// Attachments bound what is read of the files attached to messages
	// (attachments.go).
	Attachments Attachments
	// DiskFloor says whether the data directory may take new files: nil
	// or a nil error, yes; an error (store.min_free_mb, internal/diskfree)
	// is why not, told to the person whose attachments are left unread.
	// Conversations go on: their text is small, and it is what the floor
	// keeps room for.
	DiskFloor func() error
	// Runs keeps what each run told about itself, for learning from use
	// (agent/evolve); nil: nothing is kept.
	Runs RunRecorder
	// Learning serves /skills and /reflect; nil: off.
	Learning Learning
	// Helpers tell a task's helper sessions from the thread's own
	// (agent/task delegate), whose approvals resume no turn here; nil:
	// there are none.
	Helpers HelperSessions
	// Tasks keeps long tasks' state, work log and checklist message
	// (router_tasks.go); nil: off.
	Tasks task.Store
	// Metrics is told how turns end and how long their finals took to
	// show (metrics.go); nil: nothing is counted.
	Metrics Metrics
	// Costs keeps what each model call of a turn cost (costs.go); nil:
	// nothing is kept, and the money limits and /usage are off.
	Costs CostBook
	// Audit keeps the audit log the router writes: tool calls, approval
	// decisions, bindings made in chat (audit.go); nil: none.
	Audit AuditLog
	// ConsoleLink makes a one-time sign-in link to the web console for a
	// person ("platform:id"), for /console; nil: the console is off.
	ConsoleLink func(ctx context.Context, user string) (string, error)
	// Conversations counts the conversations a person ("platform:id")
	// took part in, for their Home page (router_home.go); nil: the page
	// leaves the count out.
	Conversations func(ctx context.Context, user string) (int, error)
	// Now is the clock (default time.Now).
	Now func() time.Time
	// ResumeWithin bounds crash recovery: a message older than this is not
	// answered after a restart (the conversation has moved on); it is
	// logged and closed. Default 24 h.
	ResumeWithin time.Duration
	// Sharing makes this router one of several replicas on a shared
	// store (router_shared.go); nil: the only process on its store.
	Sharing *Sharing
}

// HelperSessions tell a task's helper sessions (store.DB).
type HelperSessions interface {
	HelperParent(ctx context.Context, sessionID string) (parent string, ok bool, err error)
}

// Router is the inbound half of the chat core: every adapter's events go
// through it. It implements Handler.
type Router struct {
	cfg RouterConfig
	// approvals are what the router's turns ask; nil: none (RouterConfig.Approvals).
	approvals *approvals.Approvals
	// base is the context of every turn. Run cancels it when its own
	// context ends, so shutdown reaches turns queued even before Run
	// started (approvals recovered at start-up).
	base     context.Context
	shutdown context.CancelFunc
	adapters map[string]chat.Adapter
	slots    *fairSlots
	quota    *quotas
	spending *spending // the money limits (costs_limits.go)
	log      *slog.Logger
	// decode holds a token while a picture is decoded (attachments.go).
	decode chan struct{}

	// due delivers due reminders and schedules; nil: none.
	due *timekeeper
	// bindMu keeps two /agent use from losing one another's binding.
	bindMu sync.Mutex
	// checklist shows tasks' plans (checklist.go); set with Tasks.
	checklist *checklists

	mu       sync.Mutex
	sessions map[string]*sessionState
	// received is when each queued message reached the router, by key,
	// while Metrics wants it (metrics.go).
	received map[string]time.Time
	// leaseSeq numbers this process's lease holdings (router_shared.go).
	leaseSeq atomic.Int64
	// looked is the running turns' shared read of the unfinished inbox
	// (router_remote.go).
	looked inboxLook
	wg     sync.WaitGroup
}

// errTurnNotRun is how a turn that never reached the model ended.
var errTurnNotRun = errors.New("the turn did not run")

// sessionState is one conversation's queue: at most one turn runs; what
// arrives meanwhile steers it or waits for the next turn, never dropped.
type sessionState struct {
	running bool
	queue   []chat.Message
	// work is what must run before the queue: messages a crash
	// interrupted and decisions no turn was waiting for, in order. Each is
	// checked against the transcript when its time comes, not when it was
	// queued, so two routes to the same continuation run it once.
	work []workItem
	// recovering counts the recovered messages queued in work or running.
	recovering int
	cancel     context.CancelFunc // the running turn's, for /stop
	author     string             // the running turn's author (User.Key)
	// wake tells the running turn its author wrote (agent.Turn.Wake);
	// buffered by one, never blocks the router.
	wake chan struct{}
	// reminded is told the text of each of the author's reminders shown
	// in the conversation while the turn runs (agent.Turn.Reminded);
	// buffered by one, never blocks.
	reminded chan string
	stopped  bool // the running turn was stopped by /stop
	pause    bool // /pause: the turn pauses after its step
	// turnKeys are the inbox keys the running turn answers: its batch and
	// what steered it (router_remote.go pulls no message twice).
	turnKeys map[string]bool
}

var (
	_ chat.Handler     = (*Router)(nil)
	_ chat.HomeHandler = (*Router)(nil)
)

// approver is what a turn asks about a risky tool call: never a typed
// nil, which the runner would take for one that can answer.
func (r *Router) approver() agent.Approver {
	if r.approvals == nil {
		return nil
	}
	return r.approvals
}

// sessionThreads finds a session's conversation, for approvals.
type sessionThreads struct{ SessionMap }

func (s sessionThreads) SessionThread(ctx context.Context, id string) (chat.Thread, error) {
	info, err := s.Session(ctx, id)
	return info.Thread, err
}

// DefaultMaxConcurrent is how many turns may run at once unless
// configured. A slot is held while the model works (withSlot), so it caps
// answers a second at about this many over a model call's time: 16 over a
// 0.36 s answer is ~43 a second, above Telegram's bot-wide ~30 — the
// platform, not the slots, binds a fast model. 8 capped it at ~22
// (docs/footprint.md#throughput).
const DefaultMaxConcurrent = 16

// NewRouter returns a router for the given adapters.
func NewRouter(cfg RouterConfig, adapters ...chat.Adapter) (*Router, error) {
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ResumeWithin <= 0 {
		cfg.ResumeWithin = 24 * time.Hour
	}
	if err := cfg.Sharing.settle(); err != nil {
		return nil, err
	}
	if cfg.Outbound == nil {
		out, err := outbound.New(outbound.Config{Adapters: adapters, Keep: cfg.KV, Now: cfg.Now, Logger: cfg.Logger})
		if err != nil {
			return nil, err
		}
		cfg.Outbound = out
	}
	if cfg.Reply == nil {
		cfg.Reply = func(ctx context.Context, _ chat.Adapter, key, sid string, t chat.Thread, u chat.User, replyTo string) (outbound.Reply, error) {
			return cfg.Outbound.Begin(ctx, key, sid, t, u, replyTo)
		}
	}
	r := &Router{
		cfg:      cfg,
		adapters: map[string]chat.Adapter{},
		slots:    newFairSlots(cfg.MaxConcurrent),
		quota:    newQuotas(cfg.Limits, cfg.Agents.dailyTokens(), cfg.Access, cfg.KV, cfg.Now),
		spending: &spending{book: cfg.Costs, budget: cfg.Agents.budgets(),
			access: cfg.Access, kv: cfg.KV, now: cfg.Now},
		log:      cfg.Logger,
		decode:   make(chan struct{}, decodeSlots),
		sessions: map[string]*sessionState{},
		received: map[string]time.Time{},
	}
	if cfg.Commands != nil && cfg.Audit != nil {
		cfg.Commands.audit = r.audit
	}
	if cfg.Approvals != nil {
		ac := *cfg.Approvals
		ac.Sessions, ac.Outbound, ac.Resumer = sessionThreads{cfg.Sessions}, cfg.Outbound, r
		ac.Decided = r.auditDecision
		if ac.Now == nil {
			ac.Now = cfg.Now
		}
		if ac.Logger == nil {
			ac.Logger = cfg.Logger
		}
		a, err := approvals.New(ac)
		if err != nil {
			return nil, err
		}
		r.approvals = a
	}
	if c := cfg.Reminders; c != nil {
		r.due = &timekeeper{items: c.Items, sessions: cfg.Sessions, outbox: c.Outbox, out: cfg.Outbound, router: r,
			zones: c.Zones, wake: c.Wake, now: cfg.Now, log: cfg.Logger.With("part", "reminders"),
			running: map[int64]*scheduledRun{}}
	}
	r.base, r.shutdown = context.WithCancel(context.Background())
	if cfg.Tasks != nil {
		r.checklist = newChecklists(r.base, cfg.Tasks, cfg.Outbound, cfg.Logger.With("part", "checklist"), r.wg.Go)
	}
	for _, a := range adapters {
		r.adapters[a.Platform()] = a
		if g, ok := a.(chat.StartGated); ok && cfg.Sharing != nil {
			g.SetStartGate(r.startGate(a.Platform()))
		}
	}
	return r, nil
}

// Run resumes what a crash interrupted, then runs every adapter until ctx
// ends, and waits for running turns to wind down.
func (r *Router) Run(ctx context.Context) error {
	// A shutdown during recovery is no failure: serve still stops the
	// adapters and waits for the turns already running.
	if err := r.Recover(ctx); err != nil && ctx.Err() == nil {
		return err
	}
	return r.serve(ctx)
}

// serve runs every adapter until ctx ends, then waits for running turns.
func (r *Router) serve(ctx context.Context) error {
	defer context.AfterFunc(ctx, r.shutdown)()
	if r.cfg.Sharing != nil {
		// Not in r.wg: Wait waits for turns, and this runs until shutdown.
		adopting := make(chan struct{})
		go func() {
			defer close(adopting)
			r.adopt(r.base)
		}()
		defer func() { <-adopting }()
	}
	errs := make(chan error, len(r.adapters))
	for _, a := range r.adapters {
		go func() {
			if err := r.receive(ctx, a); err != nil && ctx.Err() == nil {
				errs <- fmt.Errorf("%s: %w", a.Platform(), err)
				return
			}
			errs <- nil
		}()
	}
	var first error
	for range r.adapters {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	r.wg.Wait()
	return first
}

// Wait blocks until no turn is running (tests, shutdown).
func (r *Router) Wait() { r.wg.Wait() }

// HandleMessage gates, checks access, records and enqueues one message.
func (r *Router) HandleMessage(ctx context.Context, m chat.Message) error {
	r.stampReceived(m.Key)
	queued, err := r.handle(ctx, m)
	if !queued {
		r.takeReceived(m.Key)
	}
	return err
}

// handle is HandleMessage; queued reports whether m was taken for a turn
// by this call.
func (r *Router) handle(ctx context.Context, m chat.Message) (queued bool, err error) {
	defer func() {
		if !queued && err == nil {
			r.answered(m.Thread.Platform, m.Key) // nothing more will come of it
		}
	}()
	if m.FromBot {
		return false, nil // never answer bots, ourselves included: no loops
	}
	if !m.Direct && !m.Mentioned && !r.cfg.Access.FreeResponse(m.Thread.Platform, m.Thread.Chat) {
		_, ok, err := r.cfg.Sessions.BoundSession(ctx, m.Thread)
		if err != nil {
			return false, err
		}
		if !ok {
			return false, nil // a channel message not meant for us
		}
	}
	if name, args, ok := chat.ParseCommand(m.Text); ok {
		return false, r.HandleCommand(ctx, commandOf(m, name, args))
	}
	if !r.cfg.Access.Allowed(m.User, m.Thread) {
		return false, r.refuse(ctx, m)
	}
	if m.Direct {
		r.privateOpened(m.User)
	}
	// Cut before it is recorded, so a recovery reads what the model read.
	var was int
	m.Text, was = r.quota.cut(m.Text)
	payload, err := encodeInbox(inboxRecord{Kind: kindMessage, Message: &m})
	if err != nil {
		return false, err
	}
	accepted, err := r.cfg.Inbox.Accept(ctx, m.Key, m.Thread.Platform, payload)
	if err != nil || !accepted {
		return false, err // a redelivery (or both Slack events of one mention)
	}
	return r.admit(ctx, m, was)
}

// commandOf is the command m was typed as. The message's files go with
// it: "/kb add" names a file sent with the command, not a later one.
func commandOf(m chat.Message, name string, args []string) chat.Command {
	return chat.Command{Key: m.Key, Thread: m.Thread, User: m.User, Name: name, Args: args, Direct: m.Direct, Files: m.Files}
}

// answered tells the adapter of platform, if it waits for answers, that
// the router is done with the message key (AnswerWatcher).
func (r *Router) answered(platform, key string) {
	if w, ok := r.adapters[platform].(chat.AnswerWatcher); ok {
		w.Answered(key)
	}
}

// refuse answers a stranger once, ever, with their id.
func (r *Router) refuse(ctx context.Context, m chat.Message) error {
	flag := "refused:" + m.User.Key()
	if _, seen, err := r.cfg.KV.Get(ctx, flag); err != nil || seen {
		return err
	}
	if err := r.cfg.KV.Set(ctx, flag, m.Key); err != nil {
		return err
	}
	if _, ok := r.adapters[m.Thread.Platform]; !ok {
		return nil
	}
	_, err := r.cfg.Outbound.Post(ctx, m.Thread, chat.Out{Text: Refusal(m.User), ReplyTo: m.ID})
	return err
}

// finishFailed ends a reply whose turn failed or was stopped: what was
// said stays, with a visible note, so nobody waits for an answer that will
// not come.
func (r *Router) finishFailed(ctx context.Context, reply outbound.Reply, shown string, err error, stopped bool) {
	note := "\n\n_⚠️ " + err.Error() + "_"
	if stopped {
		note = "\n\n_⏹ stopped_"
	}
	if ferr := reply.Finish(ctx, shown+note); ferr != nil {
		r.log.Error("finish failed reply", "err", ferr)
	}
	if !stopped && !errors.Is(err, context.Canceled) {
		r.log.Warn("turn failed", "err", err)
	}
}

func joinTexts(batch []chat.Message) string {
	if len(batch) == 1 {
		return batch[0].Text
	}
	text := ""
	for i, b := range batch {
		if i > 0 {
			text += "\n\n"
		}
		text += b.Text
	}
	return text
}

// stop cancels the running turn of t's conversation: here (stopped), or
// by a signal to the replica that runs it (elsewhere, router_remote.go).
func (r *Router) stop(ctx context.Context, t chat.Thread, by chat.User) (stopped, elsewhere bool, err error) {
	sid, ok, err := r.cfg.Sessions.BoundSession(ctx, t)
	if err != nil || !ok {
		return false, false, err
	}
	r.mu.Lock()
	st, ok := r.sessions[sid]
	if ok && st.running && st.cancel != nil {
		st.stopped = true
		st.cancel()
		r.mu.Unlock()
		return true, false, nil
	}
	r.mu.Unlock()
	elsewhere, err = r.signalElsewhere(ctx, sid, signalStop, by)
	return false, elsewhere, err
}
