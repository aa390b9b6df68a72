package main

// -replicas and -postgres: several `parley run` processes on one shared
// PostgreSQL database (issue 19, docs/replicas.md).

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// validateStore checks -replicas and -postgres.
func validateStore(replicas int, postgres string) error {
	switch {
	case replicas < 1:
		return errors.New("-replicas must be at least 1")
	case replicas > 1 && postgres == "":
		return errors.New("-replicas above 1 needs -postgres: replicas share one PostgreSQL database")
	case postgres == "":
		return nil
	}
	u, err := url.Parse(postgres)
	// No host is PostgreSQL's Unix-socket form (postgres://user@/db?host=/run/postgresql).
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || (u.Host == "" && u.Query().Get("host") == "") {
		return errors.New("-postgres: want a postgres://user@host:port/database URL (or postgres://user@/database?host=/socket/dir)")
	}
	return nil
}

// pgDatabase is the database a run with -postgres creates on the server.
type pgDatabase struct {
	server string // the -postgres URL, where the database is created and dropped
	name   string
	url    string // the server URL with its database replaced by name
}

// createDatabase creates a fresh, empty database on server.
func createDatabase(ctx context.Context, server string) (*pgDatabase, error) {
	var b [6]byte
	rand.Read(b[:]) // never fails: crypto/rand panics rather than return an error
	d := &pgDatabase{server: server, name: "parley_load_" + hex.EncodeToString(b[:])}
	u, err := url.Parse(server)
	if err != nil {
		return nil, err
	}
	u.Path = "/" + d.name
	d.url = u.String()
	if err := d.admin(ctx, `CREATE DATABASE `+d.name); err != nil {
		return nil, fmt.Errorf("-postgres: create database: %w", err)
	}
	return d, nil
}

// drop removes the database, ending connections a replica left open.
func (d *pgDatabase) drop(ctx context.Context) error {
	return d.admin(ctx, `DROP DATABASE IF EXISTS `+d.name+` WITH (FORCE)`)
}

// size is the database's size on disk (pg_database_size).
func (d *pgDatabase) size(ctx context.Context) (n int64, err error) {
	err = d.withServer(ctx, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, `SELECT pg_database_size($1)`, d.name).Scan(&n)
	})
	return n, err
}

// admin runs one statement on the server, outside the run's database.
func (d *pgDatabase) admin(ctx context.Context, sql string) error {
	return d.withServer(ctx, func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, sql)
		return err
	})
}

func (d *pgDatabase) withServer(ctx context.Context, fn func(*pgx.Conn) error) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, d.server)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	return fn(c)
}

// storeEnv points Parley at the database.
func (d *pgDatabase) storeEnv() map[string]string {
	return map[string]string{"PARLEY_STORE_DRIVER": "postgres", "PARLEY_STORE_POSTGRES_URL": d.url}
}

// replica is one `parley run` of the run.
type replica struct {
	dir    string // its directory: data_dir, HOME, log
	listen string // its http.listen; "" without -metrics
	proc   *parley
	mem    *memorySampler
	idle   memory // its memory when the run read idle memory
}

// fleet is the run's replicas; the first runs in the run directory
// itself, so one replica is laid out as before -replicas.
type fleet []*replica

// startFleet starts n replicas, each in its own directory under dir with
// envFor(its directory) and, with metrics, its own http.listen.
func startFleet(bin, dir string, n int, metrics bool, envFor func(dir string) map[string]string) (fleet, error) {
	var f fleet
	for i := range n {
		r := &replica{dir: dir}
		if i > 0 {
			r.dir = filepath.Join(dir, fmt.Sprintf("replica-%d", i))
			if err := os.Mkdir(r.dir, 0o755); err != nil {
				f.kill()
				return nil, err
			}
		}
		env := envFor(r.dir)
		if metrics {
			var err error
			if r.listen, err = freeAddr(); err != nil {
				f.kill()
				return nil, err
			}
			env["PARLEY_HTTP_LISTEN"] = r.listen
		}
		proc, err := startParley(bin, r.dir, env)
		if err != nil {
			f.kill()
			return nil, err
		}
		r.proc, r.mem = proc, &memorySampler{pid: proc.pid()}
		f = append(f, r)
	}
	return f, nil
}

// kill ends replicas a failed start left running.
func (f fleet) kill() { _ = f.stop(time.Millisecond) }

// exited is closed once any replica has exited.
func (f fleet) exited(ctx context.Context) <-chan struct{} {
	out := make(chan struct{})
	var once sync.Once
	for _, r := range f {
		go func() {
			select {
			case <-r.proc.exited():
				once.Do(func() { close(out) })
			case <-ctx.Done():
			}
		}()
	}
	return out
}

// sample keeps every replica's memory readings until ctx ends.
func (f fleet) sample(ctx context.Context, every time.Duration) {
	for _, r := range f {
		go r.mem.run(ctx, every)
	}
}

// stop stops every replica at once, each with grace, and returns how
// each ended.
func (f fleet) stop(grace time.Duration) []error {
	errs := make([]error, len(f))
	var wg sync.WaitGroup
	for i, r := range f {
		wg.Go(func() { errs[i] = r.proc.stop(grace) })
	}
	wg.Wait()
	return errs
}

// listens are the replicas' http.listen addresses.
func (f fleet) listens() []string {
	var out []string
	for _, r := range f {
		if r.listen != "" {
			out = append(out, r.listen)
		}
	}
	return out
}

// update reads every replica's memory now and returns the sum of their
// latest readings: the memory the replicas take together.
func (f fleet) update() (memory, error) {
	for _, r := range f {
		r.mem.update()
	}
	m, _, err := f.latest()
	return m, err
}

// latest is the sum of the replicas' latest readings and of their private
// peaks (each one's peak: an upper bound of the fleet's).
func (f fleet) latest() (sum memory, peakAnon int64, err error) {
	for _, r := range f {
		m, p, err := r.mem.latest()
		if err != nil {
			return memory{}, 0, err
		}
		sum.Peak += m.Peak
		sum.Current += m.Current
		sum.Anon += m.Anon
		sum.File += m.File
		peakAnon += p
	}
	return sum, peakAnon, nil
}

// keepIdle keeps each replica's reading as its idle memory.
func (f fleet) keepIdle() {
	for _, r := range f {
		r.idle, _, _ = r.mem.latest()
	}
}

// replicaFigures is one replica's share of a run of several.
type replicaFigures struct {
	Memory memReport  `json:"memory"` // idle, peak, final
	CPU    millis     `json:"cpu_ms"`
	Exit   string     `json:"exit"`
	Log    logSummary `json:"log"`
	Dir    string     `json:"dir"`
}
