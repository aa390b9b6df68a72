package main

// The flags for issue 17's memory figures: private memory (RssAnon) and
// resident memory idle, as rounds end and after every -mem-every answers,
// and the soak that piles up turns in rounds of fresh people.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"
)

// footprint holds those flags. Start-up (-restarts) is in coldstart.go.
type footprint struct {
	idle       time.Duration // sit connected this long, then read idle memory
	rounds     int           // run the load this many times, each with fresh people
	turnsTotal int           // or as many rounds as it takes to send this many questions
	duration   time.Duration // start no round after this long (0: no bound)
	memEvery   int           // keep a reading after every multiple of this many answers
	memSettle  time.Duration // rest this long after a round before a kept reading
	csv        string        // append one line of memory per round here
	restarts   int           // start and stop Parley this many times before the run
}

func (f *footprint) register(fs *flag.FlagSet) {
	fs.DurationVar(&f.idle, "idle", time.Second, "once Parley is connected, wait this long and read its idle memory (0: at once)")
	fs.IntVar(&f.rounds, "rounds", 1, "run the load this many times, each round with -users fresh people, so a soak never replays a long chat's history in the fake")
	fs.IntVar(&f.turnsTotal, "turns-total", 0, "soak: run as many rounds of -users fresh people × -messages as it takes to send this many questions (instead of -rounds)")
	fs.DurationVar(&f.duration, "duration", 30*time.Minute, "in a run of several rounds, start no round after this long (0: no bound)")
	fs.IntVar(&f.memEvery, "mem-every", 10000, "keep a memory reading in the report after the round that reaches every multiple of this many answers (0: only at the end)")
	fs.DurationVar(&f.memSettle, "mem-settle", 3*time.Second, "in a run of several rounds, how long Parley rests after a round before a kept reading (-mem-every, -footprint-csv): Go returns freed pages gradually")
	fs.StringVar(&f.csv, "footprint-csv", "", "append round,turns,seconds,rss_anon_kib,rss_file_kib,vm_rss_kib,vm_hwm_kib after each round to this file")
	fs.IntVar(&f.restarts, "restarts", 0, "Telegram only: start Parley this many times until it polls and stop it, timing exec → first getUpdates, before the run; the first creates the database, the others and the run open it")
}

func (f *footprint) validate() error {
	switch {
	case f.rounds < 1:
		return errors.New("-rounds must be at least 1")
	case f.rounds > 1 && f.turnsTotal > 0:
		return errors.New("-rounds and -turns-total both set the number of rounds: give one")
	case f.idle < 0 || f.turnsTotal < 0 || f.duration < 0 || f.memEvery < 0 || f.memSettle < 0 || f.restarts < 0:
		return errors.New("-idle, -turns-total, -duration, -mem-every, -mem-settle and -restarts cannot be negative")
	}
	return nil
}

// roundsFor is how many rounds of users people × messages the run has.
func (f *footprint) roundsFor(users, messages int) int {
	if f.turnsTotal == 0 {
		return f.rounds
	}
	per := users * messages
	return (f.turnsTotal + per - 1) / per
}

// idleMemory waits f.idle once Parley is connected and reads its memory.
func (f *footprint) idleMemory(ctx context.Context, mem memReader, logger *slog.Logger) memory {
	select {
	case <-time.After(f.idle):
	case <-ctx.Done():
	}
	m, err := mem.update()
	logMemory(m, err, "idle memory", logger, "after", f.idle)
	return m
}

// logMemory logs a reading of Parley's memory under msg.
func logMemory(m memory, err error, msg string, logger *slog.Logger, args ...any) {
	if err != nil {
		logger.Warn(msg, "err", err)
		return
	}
	logger.Info(msg, append(args, "rss_anon_kib", m.Anon>>10, "rss_file_kib", m.File>>10,
		"vm_rss_kib", m.Current>>10, "vm_hwm_kib", m.Peak>>10)...)
}

// roundReadings takes the memory readings a run asks for as each round
// ends: a log line always, a line of -footprint-csv, and a checkpoint for
// the report once the answers reach the next multiple of -mem-every and
// after the last round.
type roundReadings struct {
	f           *footprint
	mem         memReader
	logger      *slog.Logger
	start       time.Time
	rest        time.Duration // before a kept reading; none in a single round
	last        int           // answers at the last checkpoint
	checkpoints []memCheckpoint
}

func (f *footprint) readings(rounds int, mem memReader, logger *slog.Logger) *roundReadings {
	r := &roundReadings{f: f, mem: mem, logger: logger, start: time.Now()}
	if rounds > 1 {
		r.rest = f.memSettle
	}
	return r
}

// afterRound reads Parley's memory as round (from 0) ends, answered
// answers in; last says no round follows.
func (r *roundReadings) afterRound(ctx context.Context, round, answered int, last bool) {
	due := last || r.f.memEvery > 0 && answered/r.f.memEvery > r.last/r.f.memEvery
	if due || r.f.csv != "" {
		select {
		case <-time.After(r.rest):
		case <-ctx.Done():
			return
		}
	}
	m, err := r.mem.update()
	logMemory(m, err, "round done", r.logger, "round", round, "turns", answered)
	if err != nil {
		return
	}
	if due {
		r.last = answered
		r.checkpoints = append(r.checkpoints, memCheckpoint{Turns: answered, memFigures: figures(m)})
	}
	if r.f.csv == "" {
		return
	}
	line := fmt.Sprintf("%d,%d,%.1f,%d,%d,%d,%d\n", round, answered, time.Since(r.start).Seconds(),
		m.Anon>>10, m.File>>10, m.Current>>10, m.Peak>>10)
	file, err := os.OpenFile(r.f.csv, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = file.WriteString(line)
		err = errors.Join(err, file.Close())
	}
	if err != nil {
		r.logger.Warn("footprint csv", "err", err)
	}
}
