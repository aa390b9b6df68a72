package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mattn/go-sqlite3"
)

// WAL checkpoints run beside the writer, never inside its commits.
//
// By default SQLite checkpoints in the commit that takes the WAL past
// 1,000 pages: that commit copies the pages into the database file and
// syncs it, some 4–25 ms during which every other write of the process
// waits for the one writer connection. Measured on a stream of inbox and
// transcript writes, that put 1.5 % of them over 3 ms (p99 4.4 ms against
// 0.6 ms without). Since the inbox write and the user's message are on
// the path from a platform event to the model request, so is every
// checkpoint.
//
// So the writer's automatic checkpoint is off, and a connection of its
// own runs PASSIVE checkpoints — which take no write lock and wait for no
// reader or writer — after every checkpointEvery commits. That copies the
// pages, off the writer's path. The WAL starts over from its beginning
// only at a write that finds every frame copied; between Parley's writes
// the writer is idle nearly all the time, so a checkpoint usually gets
// there. Under a stream of writes with no gap it would not, and the WAL
// would grow without end: once it holds restartAfter frames, the
// checkpointer finishes on the writer's own connection — nothing can
// commit meanwhile, and only the frames since its last pass are left to
// copy — so the next write starts the WAL over. Closing the writer, the
// last connection, still folds the WAL into the file.

// checkpointEvery is how many commits of the writer wake the checkpointer:
// a few hundred pages of WAL at Parley's small transactions.
const checkpointEvery = 64

// restartAfter is how many frames the WAL may hold before the
// checkpointer finishes on the writer's connection: each such pass blocks
// writes while it copies what the last passive one left and syncs, so
// they come rarely, every 16 MiB of pages.
const restartAfter = 4000

// walSizeLimit bounds what the WAL file keeps on disk once it started
// over.
const walSizeLimit = 16 << 20

// checkpointer runs the passive checkpoints.
type checkpointer struct {
	conn    *sql.DB       // read-write, used for nothing else
	writer  *sql.DB       // the store's writer, for the finishing pass
	kick    chan struct{} // has a value when commits asked for a checkpoint
	done    chan struct{} // closed by stop
	stopped chan struct{} // closed when run returned
	commits atomic.Int64
	mu      sync.Mutex // one pass at a time
	once    sync.Once  // stop's: Close may be called again
}

// newCheckpointer returns the checkpointer of conn; its writer is set
// before run starts.
func newCheckpointer(conn *sql.DB) *checkpointer {
	return &checkpointer{conn: conn, kick: make(chan struct{}, 1), done: make(chan struct{}), stopped: make(chan struct{})}
}

// checkpoint runs a PASSIVE checkpoint on conn and returns how many
// frames the WAL holds.
func checkpoint(ctx context.Context, conn *sql.DB) (frames int, err error) {
	var busy, copied int
	err = conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied)
	return frames, err
}

// committed is the writer's commit hook: it counts, and every
// checkpointEvery commits wakes the checkpointer without waiting for it.
// It runs inside SQLite's commit, so it must return at once; 0 lets the
// commit go on.
func (c *checkpointer) committed() int {
	if c.commits.Add(1)%checkpointEvery == 0 {
		select {
		case c.kick <- struct{}{}:
		default: // a checkpoint is already due
		}
	}
	return 0
}

// run checkpoints whenever kicked, until stop.
func (c *checkpointer) run() {
	defer close(c.stopped)
	for {
		select {
		case <-c.done:
			return
		case <-c.kick:
		}
		// A failure (the file gone, the disk full) costs only WAL size:
		// the writer's next commits still succeed, and the next kick
		// tries again.
		_ = c.pass(context.Background())
	}
}

// pass copies what it can of the WAL into the file and, past
// restartAfter frames, finishes on the writer's connection.
func (c *checkpointer) pass(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	frames, err := checkpoint(ctx, c.conn)
	if err == nil && frames > restartAfter {
		_, err = checkpoint(ctx, c.writer)
	}
	return err
}

// stop ends run, after a checkpoint in progress, and closes the
// connection; calling it again does nothing more.
func (c *checkpointer) stop() error {
	c.once.Do(func() { close(c.done) })
	<-c.stopped
	return c.conn.Close()
}

// writerConnector opens the writer's connection: dsn, with the automatic
// checkpoint off and each commit counted by hook.
func writerConnector(dsn string, hook func() int) driver.Connector {
	return connector{dsn: dsn, drv: &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		// The file keeps the WAL's size once it starts over, up to the
		// bound of a pass on the writer, rather than its largest ever.
		if _, err := c.Exec(`PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = `+strconv.Itoa(walSizeLimit), nil); err != nil {
			return err
		}
		c.RegisterCommitHook(hook)
		return nil
	}}}
}

// connector is a driver.Connector over a driver without one of its own.
type connector struct {
	dsn string
	drv *sqlite3.SQLiteDriver
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return c.drv }
