package main

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/parleybot/parley/agent/llm/llmtest"
)

const (
	// readyTimeout bounds Parley's start: reaching it means it hangs.
	readyTimeout = time.Minute
	// sampleEvery is how often Parley's memory is read, so a Parley that
	// dies mid-run still has figures.
	sampleEvery = 200 * time.Millisecond
)

// run sets up the fakes and Parley, drives the load and measures it. The
// error is for a run that could not be set up; what goes wrong once the
// load runs is in the report. The run directory (binary, data, log) is
// removed unless the run failed or opts.keep is set; so is the -postgres
// database, unless opts.keep is set.
func run(ctx context.Context, opts options, logger *slog.Logger) (rep *report, err error) {
	dir, err := os.MkdirTemp("", "parley-load-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if opts.keep || err != nil || rep.failed() {
			logger.Info("run directory kept", "dir", dir)
			if rep != nil {
				rep.Dir = dir
			}
			return
		}
		if rmErr := os.RemoveAll(dir); rmErr != nil {
			logger.Warn("remove run directory", "dir", dir, "err", rmErr)
		}
		rep.LogPath = "" // gone with the directory
		for i := range rep.PerReplica {
			rep.PerReplica[i].Dir = ""
		}
	}()

	bin := opts.bin
	if bin == "" {
		logger.Info("building parley")
		if bin, err = buildParley(ctx, dir, os.Stderr); err != nil {
			return nil, err
		}
	}
	tl := newTimeline()
	sc := script{chars: opts.answerChars, latency: opts.modelLatency, delay: opts.modelDelay}
	answer := sc.responder()
	model := llmtest.NewServer(llmtest.WithAnswered(tl.answered), llmtest.WithResponder(func(req llmtest.Request) llmtest.Reply {
		tl.asked(req)
		return answer(req)
	}))
	defer model.Close()
	rounds := opts.foot.roundsFor(opts.users, opts.messages)
	plat, err := newPlatform(opts.platform, opts.users*rounds, opts.limits, opts.replicas)
	if err != nil {
		return nil, err
	}
	defer plat.Close()

	var db *pgDatabase
	if opts.postgres != "" {
		if db, err = createDatabase(ctx, opts.postgres); err != nil {
			return nil, err
		}
		logger.Info("postgres database created", "name", db.name)
		defer func() {
			if opts.keep {
				logger.Info("postgres database kept", "name", db.name)
				return
			}
			// ctx may be over (Ctrl-C): the database goes all the same.
			if dropErr := db.drop(context.WithoutCancel(ctx)); dropErr != nil {
				logger.Warn("drop postgres database", "name", db.name, "err", dropErr)
			}
		}()
	}
	envFor := func(dir string) map[string]string {
		env := parleyEnv(dir, opts, model, plat)
		if db != nil {
			maps.Copy(env, db.storeEnv())
		}
		return env
	}
	// The cold starts run Parley as deployed by default: no http.listen.
	cold, err := opts.foot.coldStarts(ctx, bin, dir, envFor(dir), plat, opts.grace, logger)
	if err != nil {
		return nil, err
	}
	execAt := time.Now()
	replicas, err := startFleet(bin, dir, opts.replicas, opts.metrics, envFor)
	if err != nil {
		return nil, err
	}
	for i, r := range replicas {
		logger.Info("parley started", "replica", i, "pid", r.proc.pid(), "log", r.proc.logPath)
	}
	stopped := false
	defer func() {
		if !stopped {
			replicas.stop(opts.grace) // the run already failed; this only cleans up
		}
	}()
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-replicas.exited(runCtx):
			cancel(errExitedEarly)
		case <-runCtx.Done():
		}
	}()
	replicas.sample(runCtx, sampleEvery)

	if err := awaitReady(runCtx, plat); err != nil {
		return nil, fmt.Errorf("parley did not connect to the fake %s (see %s): %w", opts.platform, replicas[0].proc.logPath, err)
	}
	connected := millis(time.Since(execAt))
	logger.Info("parley connected", "since_exec", connected)
	idle := opts.foot.idleMemory(runCtx, replicas, logger)
	replicas.keepIdle()

	l := newLoad(plat, opts.messages, opts.timeout, tl)
	l.ramp, l.rounds, l.script = opts.ramp, rounds, sc
	if rounds > 1 && opts.foot.duration > 0 {
		l.deadline = time.Now().Add(opts.foot.duration)
	}
	readings := opts.foot.readings(rounds, replicas, logger)
	l.afterRound = func(round, answered int, last bool) { readings.afterRound(runCtx, round, answered, last) }
	logger.Info("load started", "platform", opts.platform, "users", opts.users, "messages", opts.messages, "rounds", rounds, "replicas", opts.replicas)
	out := l.run(runCtx, opts.users)
	logger.Info("load done; watching for late duplicates", "wall", out.wall.Round(time.Millisecond), "settle", opts.settle)
	select {
	case <-time.After(opts.settle):
	case <-runCtx.Done():
	}
	final, memErr := replicas.update()
	logMemory(final, memErr, "memory after settling", logger, "settle", opts.settle)

	botAdded, inbound := tl.spans()
	rep = &report{
		Platform: opts.platform, Users: opts.users, MessagesPerUser: opts.messages, TurnsTotal: opts.foot.turnsTotal,
		Rounds: rounds, RoundsRun: out.rounds, Cut: out.cut,
		ModelDelay: millis(opts.modelDelay), ModelLatency: millis(opts.modelLatency), AnswerChars: opts.answerChars, MaxConcurrent: opts.concurrency, RateLimits: opts.limits, Ramp: millis(opts.ramp),
		Replicas: opts.replicas, Store: "sqlite",
		Sent: out.sent, Answered: len(out.latencies), Lost: out.lost,
		Wall: millis(out.wall), Latency: summarise(out.latencies),
		BotAdded: summarise(botAdded), InboundToModel: summarise(inbound),
		RateLimited: plat.rateLimited(), APICalls: plat.calls(), Edits: plat.log().editCount(),
		Connected: connected, ColdStarts: cold, LogPath: replicas[0].proc.logPath,
	}
	if db != nil {
		rep.Store = "postgres"
	}
	opts.delivery.logBotAdded(rep.BotAdded, logger)
	if listens := replicas.listens(); len(listens) > 0 {
		if v, err := scrapeParley(runCtx, listens...); err == nil {
			rep.Parley = &v
		} else {
			logger.Warn("Parley's /metrics not read", "err", err)
		}
	}
	if out.wall > 0 {
		rep.AnswersPerSecond = float64(rep.Answered) / out.wall.Seconds()
	}
	rep.Duplicates, rep.Unexpected, rep.UnexpectedSamples = tally(plat, sc, out.people)
	if cause := context.Cause(runCtx); cause != nil {
		rep.Error = cause.Error()
	}
	if m, peakAnon, err := replicas.latest(); err == nil {
		rep.PeakRSS, rep.FinalRSS = m.Peak, m.Current
		rep.Memory = memReport{Idle: figures(idle), Peak: memFigures{Private: peakAnon, Resident: m.Peak}, Final: figures(m),
			AfterTurns: readings.checkpoints}
	} else {
		logger.Warn("no memory figures", "err", err)
	}

	stopped = true
	exits := replicas.stop(opts.grace)
	if err := rep.measureReplicas(replicas, exits); err != nil {
		return nil, err
	}
	if db != nil {
		rep.DBBytes, err = db.size(ctx)
		return rep, err
	}
	return rep, rep.measureSQLite(filepath.Join(dir, "data"))
}

// awaitReady waits until Parley is connected to plat, at most
// readyTimeout; the error says why it is not (the timeout, or what ended
// ctx: Parley exiting).
func awaitReady(ctx context.Context, plat platform) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	err := plat.ready(ctx)
	if cause := context.Cause(ctx); err != nil && cause != nil {
		return cause
	}
	return err
}

// parleyEnv is Parley's whole environment: its data and config in dir,
// the fake model, the fake platform, and -env.
func parleyEnv(dir string, opts options, model *llmtest.Server, plat platform) map[string]string {
	env := map[string]string{
		"PATH":                       os.Getenv("PATH"),
		"HOME":                       dir,
		"XDG_CONFIG_HOME":            filepath.Join(dir, "xdg"),
		"PARLEY_DATA_DIR":            filepath.Join(dir, "data"),
		"PARLEY_LLM_OPENAI_API_KEY":  "sk-load",
		"PARLEY_LLM_OPENAI_BASE_URL": model.OpenAIBaseURL(),
	}
	if opts.concurrency > 0 {
		env["PARLEY_LLM_MAX_CONCURRENT"] = strconv.Itoa(opts.concurrency)
	}
	for k, v := range plat.env() {
		env[k] = v
	}
	for _, kv := range opts.delivery.env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return env
}

// measureSQLite fills in the database size, once Parley has stopped.
func (r *report) measureSQLite(dataDir string) error {
	var err error
	db := filepath.Join(dataDir, "parley.db")
	if r.DBBytes, err = fileSize(db); err != nil {
		return err
	}
	r.WALBytes, err = fileSize(db + "-wal")
	return err
}

// measureReplicas fills in how the replicas ended — exit, CPU, log — once
// they have stopped: the run's figures are their totals, and with more
// than one each replica's are kept beside them.
func (r *report) measureReplicas(f fleet, exits []error) error {
	r.Exit = "ok"
	for i, rp := range f {
		exit := "ok"
		if exits[i] != nil {
			exit = exits[i].Error()
		}
		logf, err := os.Open(rp.proc.logPath)
		if err != nil {
			return err
		}
		log, err := scanLog(logf)
		logf.Close()
		if err != nil {
			return fmt.Errorf("read %s: %w", rp.proc.logPath, err)
		}
		cpu := rp.proc.cpu()
		r.CPU += millis(cpu)
		r.Log.Errors += log.Errors
		r.Log.Warnings += log.Warnings
		for _, s := range log.Samples {
			if len(r.Log.Samples) < maxLogSamples {
				r.Log.Samples = append(r.Log.Samples, s)
			}
		}
		if exit != "ok" && r.Exit == "ok" {
			r.Exit = exit
			if len(f) > 1 {
				r.Exit = fmt.Sprintf("replica %d: %s", i, exit)
			}
		}
		if len(f) == 1 {
			continue
		}
		m, peakAnon, _ := rp.mem.latest()
		r.PerReplica = append(r.PerReplica, replicaFigures{
			Memory: memReport{Idle: figures(rp.idle), Peak: memFigures{Private: peakAnon, Resident: m.Peak}, Final: figures(m)},
			CPU:    millis(cpu), Exit: exit, Log: log, Dir: rp.dir,
		})
	}
	return nil
}
