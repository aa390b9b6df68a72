// Command parley-load measures Parley the way people run it: the real
// parley binary, started with `parley run`, talking to an in-process fake
// chat platform (Telegram, Discord or Slack) on which many simulated people
// chat with it at once, each in their own direct chat, answered by an
// in-process fake model.
//
//	go run ./cmd/parley-load -users 100 -messages 5 -platform discord
//
// Every person sends their messages one after another, waiting for each
// answer as a person would. The tool reports answer latency (post to the
// complete answer being visible), the bot's share of it (the model fake
// done → the platform fake showing the answer), the inbound path (posted
// → the model fake asked, and Parley's own inbound → model histogram from
// its /metrics), throughput, lost and duplicated answers, the 429s the
// fake answered, edits made against the budget allowed, Parley's private
// (RssAnon) and resident memory idle, at peak, at the end and after every
// -mem-every answers, the time from exec to its first poll, and the size
// of its SQLite database. It exits 1 when an answer was lost or
// duplicated or Parley failed — never for a timing.
//
// With -postgres the run's Parley keeps its store in a fresh PostgreSQL
// database, and -replicas runs several `parley run` processes on it at
// once (docs/replicas.md), reporting each one's memory too:
//
//	go run ./cmd/parley-load -platform slack -replicas 3 -postgres postgres://parley@127.0.0.1:5432/postgres
//
// A soak runs rounds of fresh people (new chats, so no chat's history
// grows without end) until -turns-total questions were sent, starting no
// round after -duration:
//
//	go run ./cmd/parley-load -users 200 -messages 5 -turns-total 100000 -duration 20m
//
// The flags are documented in docs/operations.md (the load tool) and
// docs/footprint.md (the memory and start-up figures).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

// options are the command-line flags.
type options struct {
	bin        string
	platform   string
	users      int
	messages   int
	timeout    time.Duration
	modelDelay time.Duration
	// modelLatency and answerChars shape each answer (script).
	modelLatency time.Duration
	answerChars  int
	concurrency  int
	limits       bool
	json         bool
	keep         bool
	settle       time.Duration
	grace        time.Duration
	ramp         time.Duration
	metrics      bool
	replicas     int
	postgres     string    // a server URL; the run creates its database there
	delivery     delivery  // delivery_flags.go
	foot         footprint // footprint.go
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("parley-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.bin, "bin", "", "parley binary to run (default: build ./cmd/parley into the run directory)")
	fs.StringVar(&o.platform, "platform", platformTelegram, "fake chat platform: telegram, discord or slack")
	fs.IntVar(&o.users, "users", 100, "simulated people, each in their own direct chat")
	fs.IntVar(&o.messages, "messages", 5, "messages each person sends, one after the other")
	fs.DurationVar(&o.timeout, "timeout", 2*time.Minute, "how long a person waits for an answer before counting it lost")
	fs.DurationVar(&o.modelDelay, "model-delay", 0, "pause between the model's streamed chunks")
	// The defaults are the model of the independent probe the README's
	// figures answer to (docs/footprint.md#throughput): 276 characters
	// after 0.36 s, against a fake enforcing the platform's limits.
	fs.DurationVar(&o.modelLatency, "model-latency", 360*time.Millisecond, "the model's time to its first token")
	fs.IntVar(&o.answerChars, "answer-chars", 276, "the length of each answer in characters (0: a short one-line answer)")
	fs.IntVar(&o.concurrency, "concurrency", 0, "PARLEY_LLM_MAX_CONCURRENT for Parley (0: Parley's default)")
	fs.BoolVar(&o.limits, "limits", true, "enforce the platform's real rate limits in the fake (-limits=false: none)")
	fs.BoolVar(&o.json, "json", false, "print the report as JSON")
	fs.BoolVar(&o.keep, "keep", false, "keep the run directory (log, database) even when the run passed")
	fs.DurationVar(&o.settle, "settle", 2*time.Second, "how long to keep watching for duplicate answers after the last one")
	fs.DurationVar(&o.grace, "grace", 15*time.Second, "how long Parley may take to stop after SIGTERM before it is killed")
	fs.DurationVar(&o.ramp, "ramp", 0, "spread each round's first messages evenly over this long (0: all at once)")
	fs.BoolVar(&o.metrics, "metrics", true, "set Parley's http.listen and read its /metrics at the end (false: Parley as deployed by default)")
	fs.IntVar(&o.replicas, "replicas", 1, "run this many `parley run` processes on one shared store (more than 1 needs -postgres)")
	fs.StringVar(&o.postgres, "postgres", "", "a PostgreSQL server URL (postgres://user@host:5432/postgres): the run creates a fresh database there, runs every replica on it and drops it after (default: SQLite)")
	o.delivery.register(fs)
	o.foot.register(fs)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.bin != "" {
		// Parley runs in its run directory: a relative path would miss.
		abs, err := filepath.Abs(o.bin)
		if err != nil {
			return o, fmt.Errorf("-bin: %w", err)
		}
		o.bin = abs
	}
	switch {
	case o.platform != platformTelegram && o.platform != platformDiscord && o.platform != platformSlack:
		return o, fmt.Errorf("-platform %q: want %s, %s or %s", o.platform, platformTelegram, platformDiscord, platformSlack)
	case o.users < 1 || o.messages < 1:
		return o, errors.New("-users and -messages must be at least 1")
	case o.timeout <= 0:
		return o, errors.New("-timeout must be positive")
	case o.concurrency < 0 || o.modelDelay < 0 || o.modelLatency < 0 || o.answerChars < 0 || o.settle < 0 || o.ramp < 0 || o.grace <= 0:
		return o, errors.New("-concurrency, -model-delay, -settle and -ramp cannot be negative, -grace must be positive")
	}
	if err := validateStore(o.replicas, o.postgres); err != nil {
		return o, err
	}
	if err := o.foot.validate(); err != nil {
		return o, err
	}
	return o, nil
}

func main() {
	// Ctrl-C ends the load early but still stops Parley and reports.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(realMain(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// realMain runs the tool and returns its exit code: 0 passed, 1 failed
// (lost, duplicated, Parley misbehaved or the run could not be set up),
// 2 bad flags.
func realMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "parley-load:", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	rep, err := run(ctx, opts, logger)
	if err != nil {
		logger.Error("load run failed", "err", err)
		return 1
	}
	if opts.json {
		err = rep.writeJSON(stdout)
	} else {
		err = rep.writeTable(stdout)
	}
	if err != nil {
		logger.Error("write report", "err", err)
		return 1
	}
	if rep.failed() {
		return 1
	}
	return 0
}
