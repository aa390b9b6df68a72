package bot

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/clock"
)

// CoreStore is the storage the chat core keeps its state in; store.DB
// implements it.
type CoreStore interface {
	SessionMap
	Inbox
	outbound.Outbox
	chat.KV
	approvals.Store
}

// CoreConfig is what the chat core is built from. Adapters, Store and
// Runner are required.
type CoreConfig struct {
	Adapters []chat.Adapter
	Store    CoreStore
	// Runner answers turns. The core becomes its Approver: risky tools are
	// approved with buttons in the conversation that asked.
	Runner *agent.Runner
	// Agents choose the runner per conversation (agents.go); their
	// DefaultAgent's runner should be Runner. nil: Runner everywhere.
	Agents *Agents
	// MemoryLimits are the caps /memory shows.
	MemoryLimits agent.MemoryLimits
	// Access decides who is answered where.
	Access Access
	// Approvers may decide any approval, and alone approve a mandatory one
	// (shell, an untrusted MCP server); nil means Access.Admins.
	Approvers []string
	// ApprovalExpiry is how long an approval waits (DefaultApprovalExpiry
	// if zero).
	ApprovalExpiry time.Duration
	// MaxConcurrent bounds the turns running at once (default
	// DefaultMaxConcurrent).
	MaxConcurrent int
	// Model is the model /status names.
	Model string
	// Limits bound what one person can ask of Parley (quota.go).
	Limits Limits
	// Knowledge is the knowledge base /kb manages; nil: none.
	Knowledge Knowledge
	// Attachments bound what is read of the files people attach.
	Attachments Attachments
	// DiskFloor is RouterConfig.DiskFloor.
	DiskFloor func() error
	// Runs keeps what each run told about itself (agent/evolve); nil:
	// nothing is kept (evolution.enabled: false).
	Runs RunRecorder
	// Learning serves /skills and /reflect; nil: off.
	Learning Learning
	// Helpers tell a task's helper sessions (agent/task delegate); nil:
	// there are none.
	Helpers HelperSessions
	// Reminders keeps reminders and schedules (agent/remind); nil: off.
	Reminders remind.ItemStore
	// ReminderLoop claims due items: the core sets its Deliver and runs
	// it beside the chat. Required with Reminders.
	ReminderLoop *remind.Loop
	// Zones tell each person's time zone, for /tz and /remind.
	Zones Zones
	// Tasks keeps long tasks (agent/task): the core shows their
	// checklists, keeps their state and work log, and serves /pause,
	// /resume and /worklog. nil: off. The runner's Plans and todo tool
	// are set apart (cmd/parley).
	Tasks task.Store
	// ResumeWithin bounds crash recovery (default 24 h).
	ResumeWithin time.Duration
	// Metrics is told how turns end and how fast finals show
	// (bot/metrics); nil: nothing is counted.
	Metrics Metrics
	// Costs keeps what turns' model calls cost (costs.go); nil: nothing
	// is kept, the money limits and /usage are off.
	Costs CostBook
	// Audit keeps the audit log (audit.go); nil: none.
	Audit AuditLog
	// Team is RouterConfig.Team: the places' team notes; nil: none.
	Team *TeamConfig
	// History is RouterConfig.History: the index history_search reads.
	History HistoryIndex
	// ConsoleLink makes /console's sign-in links; nil: the console is off.
	ConsoleLink func(ctx context.Context, user string) (string, error)
	// Conversations counts a person's conversations for their Home page
	// (router_home.go); nil: the page leaves the count out.
	Conversations func(ctx context.Context, user string) (int, error)
	// Sharing makes this core one of several replicas on a shared store
	// (router_shared.go); its Sleep defaults to the core's. nil: the only
	// process on its store.
	Sharing *Sharing
	// Now and Sleep are the clock of everything in the core (defaults:
	// time.Now and a timer).
	Now    func() time.Time
	Sleep  func(ctx context.Context, d time.Duration) error
	Logger *slog.Logger
}

// Lead runs run on one replica of those sharing the store, failing over
// to another when that one dies or stops (the reflection cycle, the
// knowledge base's embedder and folder watcher: work that must not run
// twice at once). Without sharing it just runs run. It returns when ctx
// ends, or with run's own error.
func (c *Core) Lead(ctx context.Context, name string, run func(context.Context) error) error {
	return c.router.lead(ctx, name, run)
}

// PauseAsked reports whether someone asked session sid's task to pause.
func (c *Core) PauseAsked(sid string) bool { return c.router.PauseAsked(sid) }

// expirySweep is how often undecided approvals are checked for expiry.
const expirySweep = 30 * time.Second

// Core is the running chat core: per adapter one pacer and delivery, the
// durable approvals, the router, the expiry sweep and crash recovery.
type Core struct {
	cfg       CoreConfig
	out       *outbound.Outbound
	approvals *approvals.Approvals
	router    *Router
}

// NewCore builds the chat core over adapters.
func NewCore(cfg CoreConfig) (*Core, error) {
	if len(cfg.Adapters) == 0 || cfg.Store == nil || cfg.Runner == nil {
		return nil, errors.New("core: Adapters, Store and Runner are required")
	}
	cfg.Now, cfg.Sleep = clock.Or(cfg.Now, cfg.Sleep)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Approvers == nil {
		cfg.Approvers = cfg.Access.Admins
	}
	if cfg.ApprovalExpiry <= 0 {
		cfg.ApprovalExpiry = approvals.DefaultExpiry
	}
	out, err := outbound.New(outbound.Config{Adapters: cfg.Adapters, Outbox: cfg.Store, Keep: cfg.Store, Now: cfg.Now, Sleep: cfg.Sleep, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	var poll time.Duration
	if cfg.Sharing != nil {
		poll = time.Second // a click may reach another replica
	}
	if cfg.Sharing != nil {
		sharing := *cfg.Sharing
		if sharing.Sleep == nil {
			sharing.Sleep = cfg.Sleep
		}
		sharing.busy = make(chan struct{}, 1)
		cfg.Sharing = &sharing
	}
	var reminders *RemindersConfig
	if cfg.Reminders != nil {
		if cfg.ReminderLoop == nil {
			return nil, errors.New("core: Reminders without a ReminderLoop")
		}
		reminders = &RemindersConfig{Items: cfg.Reminders, Outbox: cfg.Store, Zones: cfg.Zones, Wake: cfg.ReminderLoop.Wake}
	}
	router, err := NewRouter(RouterConfig{
		Sessions: cfg.Store, Inbox: cfg.Store, KV: cfg.Store, Runner: cfg.Runner, Agents: cfg.Agents,
		Commands: NewSharedCommands(cfg.Store, cfg.Runner.Memory, cfg.MemoryLimits),
		Access:   cfg.Access, Outbound: out,
		Approvals: &approvals.Config{Store: cfg.Store, Approvers: cfg.Approvers, Expiry: cfg.ApprovalExpiry,
			PollEvery: poll, Now: cfg.Now, Sleep: cfg.Sleep, Logger: cfg.Logger},
		MaxConcurrent: cfg.MaxConcurrent, Model: cfg.Model, Limits: cfg.Limits, ResumeWithin: cfg.ResumeWithin,
		Knowledge: cfg.Knowledge, Attachments: cfg.Attachments, DiskFloor: cfg.DiskFloor, Runs: cfg.Runs, Learning: cfg.Learning, Tasks: cfg.Tasks, Helpers: cfg.Helpers,
		Metrics: cfg.Metrics, Costs: cfg.Costs, Audit: cfg.Audit, Team: cfg.Team, History: cfg.History, ConsoleLink: cfg.ConsoleLink, Conversations: cfg.Conversations, Now: cfg.Now, Logger: cfg.Logger, Sharing: cfg.Sharing, Reminders: reminders,
	}, cfg.Adapters...)
	if err != nil {
		return nil, err
	}
	return &Core{cfg: cfg, out: out, approvals: router.approvals, router: router}, nil
}

// Run runs the core until ctx ends: it first queues what a crash
// interrupted, then settles approvals that expired or were decided while
// no turn waited, then takes events from every adapter. The order matters:
// a recovered turn that was waiting for an approval asks for it again and
// finds the decision, so it continues in its own reply, once.
func (c *Core) Run(ctx context.Context) error {
	if s := c.router.cfg.Sharing; s != nil && s.Replicas != nil {
		beatCtx, stopBeat := context.WithCancel(ctx)
		beating := make(chan struct{})
		go func() {
			defer close(beating)
			c.beat(beatCtx)
		}()
		defer func() { stopBeat(); <-beating }()
	}
	if err := c.router.Recover(ctx); err != nil && ctx.Err() == nil {
		return err // a shutdown during recovery is no failure: serve below stops and waits
	}
	if err := c.approvals.ExpireDue(ctx); err != nil {
		c.cfg.Logger.Warn("expire approvals", "err", err)
	}
	if err := c.approvals.Recover(ctx, c.cfg.Now().Add(-c.cfg.ApprovalExpiry-time.Hour)); err != nil {
		c.cfg.Logger.Warn("recover approvals", "err", err)
	}
	bgCtx, stopBackground := context.WithCancel(ctx)
	var bg sync.WaitGroup
	defer bg.Wait()
	defer stopBackground()
	bg.Go(func() { c.sweep(bgCtx) })
	if c.cfg.Reminders != nil {
		// After recovery: a scheduled run a crash interrupted is queued
		// before its claim is handed over again.
		bg.Go(func() { c.cfg.ReminderLoop.Run(bgCtx, c.router.due.Deliver) })
	}
	return c.router.serve(ctx)
}

// sweep expires undecided approvals on the core's clock.
func (c *Core) sweep(ctx context.Context) {
	for c.cfg.Sleep(ctx, expirySweep) == nil {
		if err := c.approvals.ExpireDue(ctx); err != nil {
			c.cfg.Logger.Warn("expire approvals", "err", err)
		}
	}
}
