package metrics

import (
	"context"
	"database/sql"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/parleybot/parley/bot"
)

// Counts are the store's figures the gauges read at each scrape
// (store.DB).
type Counts interface {
	PendingApprovals(ctx context.Context) (int, error)
	DueReminders(ctx context.Context, now time.Time) (int, error)
}

// Pools are the store's connection pools and its writer's commits
// (store.DB).
type Pools interface {
	PoolStats() (writer, readers sql.DBStats)
	Commits() int64
}

// Loader is what the core has in hand (bot.Core).
type Loader interface {
	Load() bot.Load
}

// scrapeWait bounds the store's counts during a scrape: a busy database
// costs the gauges of one scrape, not the scrape.
const scrapeWait = 2 * time.Second

// Watch adds the gauges read at each scrape: core's queues and slots, and
// store's pending approvals and due reminders, and its connection pools'
// waits when it has them (Pools). Either may be nil. Call it
// once, when the core exists (it is built after the Recorder it reports
// to).
func (r *Recorder) Watch(core Loader, store Counts) error {
	pools, _ := store.(Pools)
	return r.reg.Register(&gauges{r: r, core: core, store: store, pools: pools,
		waits:     prometheus.NewDesc("parley_store_waits_total", "Times a store operation waited for a connection, by pool (writer: the one connection every write takes in turn).", []string{"pool"}, nil),
		waited:    prometheus.NewDesc("parley_store_wait_seconds_total", "Time store operations waited for a connection, by pool.", []string{"pool"}, nil),
		inUse:     prometheus.NewDesc("parley_store_connections_in_use", "Connections busy with an operation, by pool.", []string{"pool"}, nil),
		commits:   prometheus.NewDesc("parley_store_commits_total", "Write transactions committed.", nil, nil),
		queued:    prometheus.NewDesc("parley_queue_messages", "Messages and recovered work waiting behind a conversation's running turn.", nil, nil),
		waiting:   prometheus.NewDesc("parley_turns_waiting", "Turns waiting for one of the llm.max_concurrent slots.", nil, nil),
		running:   prometheus.NewDesc("parley_turns_running", "Turns holding a slot: the model is working for them.", nil, nil),
		approvals: prometheus.NewDesc("parley_approvals_pending", "Approvals waiting for a decision.", nil, nil),
		reminders: prometheus.NewDesc("parley_reminders_due", "Reminders and scheduled runs due and not shown yet.", nil, nil),
	})
}

// gauges is a collector: its values are read when scraped, never kept.
type gauges struct {
	r     *Recorder
	core  Loader
	store Counts
	pools Pools

	queued, waiting, running, approvals, reminders *prometheus.Desc
	waits, waited, inUse, commits                  *prometheus.Desc
}

func (g *gauges) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{g.queued, g.waiting, g.running, g.approvals, g.reminders, g.waits, g.waited, g.inUse, g.commits} {
		ch <- d
	}
}

func (g *gauges) Collect(ch chan<- prometheus.Metric) {
	if g.core != nil {
		l := g.core.Load()
		ch <- prometheus.MustNewConstMetric(g.queued, prometheus.GaugeValue, float64(l.Queued))
		ch <- prometheus.MustNewConstMetric(g.waiting, prometheus.GaugeValue, float64(l.Waiting))
		ch <- prometheus.MustNewConstMetric(g.running, prometheus.GaugeValue, float64(l.Running))
	}
	if g.pools != nil {
		w, rd := g.pools.PoolStats()
		for pool, s := range map[string]sql.DBStats{"writer": w, "readers": rd} {
			ch <- prometheus.MustNewConstMetric(g.waits, prometheus.CounterValue, float64(s.WaitCount), pool)
			ch <- prometheus.MustNewConstMetric(g.waited, prometheus.CounterValue, s.WaitDuration.Seconds(), pool)
			ch <- prometheus.MustNewConstMetric(g.inUse, prometheus.GaugeValue, float64(s.InUse), pool)
		}
		ch <- prometheus.MustNewConstMetric(g.commits, prometheus.CounterValue, float64(g.pools.Commits()))
	}
	if g.store == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), scrapeWait)
	defer cancel()
	// A count that fails is left out of this scrape and counted: an
	// absent series alerts, a wrong zero would not.
	if n, err := g.store.PendingApprovals(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(g.approvals, prometheus.GaugeValue, float64(n))
	} else {
		g.r.errors.WithLabelValues("store", "query").Inc()
	}
	if n, err := g.store.DueReminders(ctx, g.r.now()); err == nil {
		ch <- prometheus.MustNewConstMetric(g.reminders, prometheus.GaugeValue, float64(n))
	} else {
		g.r.errors.WithLabelValues("store", "query").Inc()
	}
}
