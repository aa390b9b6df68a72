package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

// footprint holds the flags for issue 17's memory figures, which the
// report does not carry: private memory (RssAnon) idle and as turns pile
// up, the time from exec to the first long poll, and a soak in rounds.
type footprint struct {
	idle     time.Duration // wait this long once connected, then read idle memory (0: skip)
	rounds   int           // run the load this many times, each with fresh people
	csv      string        // append one line of memory per round here
	restarts int           // start and stop Parley this many times before the run
}

func (f *footprint) register(fs *flag.FlagSet) {
	fs.DurationVar(&f.idle, "idle", 0, "once Parley is connected, wait this long and log its idle memory (RssAnon, RssFile, VmRSS)")
	fs.IntVar(&f.rounds, "rounds", 1, "run the load this many times, each round with -users fresh people, so a soak never replays a long chat's history in the fake")
	fs.StringVar(&f.csv, "footprint-csv", "", "append round,turns,seconds,rss_anon_kib,rss_file_kib,vm_rss_kib,vm_hwm_kib after each round to this file")
	fs.IntVar(&f.restarts, "restarts", 0, "Telegram only: start Parley this many times until it polls and stop it, logging exec → first getUpdates, before the run; the first creates the database, the others and the run open it")
}

func (f *footprint) validate() error {
	if f.rounds < 1 || f.idle < 0 || f.restarts < 0 {
		return errors.New("-rounds must be at least 1, -idle and -restarts cannot be negative")
	}
	return nil
}

// statusKiB reads the named kB fields of /proc/<pid>/status.
func statusKiB(pid int, keys ...string) (map[string]int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseStatusKiB(f, keys...)
}

func parseStatusKiB(r io.Reader, keys ...string) (map[string]int64, error) {
	out := make(map[string]int64, len(keys))
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		for _, k := range keys {
			if k != key {
				continue
			}
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			out[key] = n
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, k := range keys {
		if _, ok := out[k]; !ok {
			return nil, fmt.Errorf("no %s in status", k)
		}
	}
	return out, nil
}

var footprintKeys = []string{"RssAnon", "RssFile", "VmRSS", "VmHWM"}

// logIdle waits f.idle and logs Parley's memory at rest.
func (f *footprint) logIdle(ctx context.Context, pid int, logger *slog.Logger) {
	if f.idle == 0 {
		return
	}
	select {
	case <-time.After(f.idle):
	case <-ctx.Done():
		return
	}
	logMemory(pid, "idle memory", logger, "after", f.idle)
}

// logMemory logs Parley's memory now under msg.
func logMemory(pid int, msg string, logger *slog.Logger, args ...any) {
	m, err := statusKiB(pid, footprintKeys...)
	if err != nil {
		logger.Warn(msg, "err", err)
		return
	}
	logger.Info(msg, append(args, "rss_anon_kib", m["RssAnon"], "rss_file_kib", m["RssFile"],
		"vm_rss_kib", m["VmRSS"], "vm_hwm_kib", m["VmHWM"])...)
}

// afterRound logs, and appends to the CSV, Parley's memory once round
// (from 0) is over.
func (f *footprint) afterRound(pid, round, turns int, since time.Time, logger *slog.Logger) {
	m, err := statusKiB(pid, footprintKeys...)
	if err != nil {
		logger.Warn("memory after round", "round", round, "err", err)
		return
	}
	secs := time.Since(since).Seconds()
	logger.Info("round done", "round", round, "turns", turns, "rss_anon_kib", m["RssAnon"], "vm_rss_kib", m["VmRSS"])
	if f.csv == "" {
		return
	}
	line := fmt.Sprintf("%d,%d,%.1f,%d,%d,%d,%d\n", round, turns, secs, m["RssAnon"], m["RssFile"], m["VmRSS"], m["VmHWM"])
	file, err := os.OpenFile(f.csv, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = file.WriteString(line)
		err = errors.Join(err, file.Close())
	}
	if err != nil {
		logger.Warn("footprint csv", "err", err)
	}
}

// coldStarts starts Parley f.restarts times in dir, each until it polls
// the fake, and stops it, logging the time from exec to the first
// getUpdates: the first start creates the database, the others open it
// as a restart does.
func (f *footprint) coldStarts(ctx context.Context, bin, dir string, env map[string]string, plat platform, grace time.Duration, logger *slog.Logger) error {
	if f.restarts == 0 {
		return nil
	}
	tg, ok := plat.(*telegram)
	if !ok {
		return errors.New("-restarts needs -platform telegram")
	}
	for i := range f.restarts {
		at := time.Now()
		p, err := startParley(bin, dir, env)
		if err != nil {
			return err
		}
		readyCtx, done := context.WithTimeout(ctx, readyTimeout)
		err = plat.ready(readyCtx)
		done()
		if err != nil {
			_ = p.stop(grace)
			return fmt.Errorf("start %d: parley did not poll (see %s): %w", i, p.logPath, err)
		}
		logger.Info("cold start", "start", i, "new_database", i == 0, "since_exec", time.Since(at).Round(10*time.Microsecond))
		if err := p.stop(grace); err != nil {
			return fmt.Errorf("start %d: stop: %w", i, err)
		}
		// The fake sees the poll's connection close a moment later; the
		// next start must not be taken for ready before it polls.
		if err := tg.srv.WaitFor(ctx, func() bool { return !tg.srv.Polling() }); err != nil {
			return err
		}
	}
	return nil
}
