package main

// Several replicas end to end: three `parley run` processes of the real
// binary share one PostgreSQL database, one Telegram fake and one fake
// model (docs/replicas.md).

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/internal/syncbuf"
	"github.com/parleybot/parley/store/postgres/pgtest"
)

// questionN finds the number in the last "question N" of a model request.
var questionN = regexp.MustCompile(`question (\d+)`)

// answerTo answers "question N" with "Answer N.", streamed slowly enough
// that a replica killed mid-way leaves turns half written.
func answerTo(r llmtest.Request) llmtest.Reply {
	all := questionN.FindAllSubmatch(r.Body, -1)
	if len(all) == 0 {
		return llmtest.Text("No question.")
	}
	n := string(all[len(all)-1][1])
	return llmtest.Text("Answer ", n, ".").Paced(700 * time.Millisecond)
}

// TestReplicasShareTheWork: 200 people each ask once while three replicas
// run on one PostgreSQL database. The replica receiving from Telegram (the
// elected poller) is killed with SIGKILL while turns are mid-stream. Its
// leases expire, another replica takes over polling and resumes the
// unfinished turns from the store: every person gets exactly one answer,
// the right one, nothing is lost or doubled, and the replicas together
// draw no 429 and no 409 (two pollers) from Telegram.
func TestReplicasShareTheWork(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three replicas")
	}
	t.Parallel()
	url := pgtest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()

	const people = 200
	tg := telegramtest.NewServer()
	t.Cleanup(tg.Close)
	ids := make([]string, people)
	for i := range people {
		id := int64(5000 + i)
		tg.AddUser(id, fmt.Sprintf("P%d", i), fmt.Sprintf("p%d", i))
		ids[i] = strconv.FormatInt(id, 10)
	}
	model := llmtest.NewServer(llmtest.WithResponder(answerTo))
	t.Cleanup(model.Close)

	logs := &syncbuf.Buffer{}
	replicas := make([]*exec.Cmd, 3)
	for i := range replicas {
		sb := newSandbox(t,
			"PARLEY_TELEGRAM_ENABLED=true",
			"PARLEY_TELEGRAM_TOKEN="+tg.Token(),
			"PARLEY_TELEGRAM_API_URL="+tg.URL,
			"PARLEY_ACCESS_TELEGRAM_ALLOW_USERS="+strings.Join(ids, ","),
			"PARLEY_STORE_DRIVER=postgres",
			"PARLEY_STORE_POSTGRES_URL="+url,
			"PARLEY_STORE_LEASE_SECONDS=3",
			"PARLEY_LLM_MAX_CONCURRENT=64",
			"PARLEY_EVOLUTION_ENABLED=false",
		).withLLM(model)
		cmd := sb.command(ctx, "run")
		cmd.Stdout, cmd.Stderr = logs, logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		replicas[i] = cmd
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		})
	}
	if err := tg.WaitFor(ctx, tg.Polling); err != nil {
		t.Fatalf("no replica polls: %v\n%s", err, logs)
	}

	for i := range people {
		tg.Post(telegramtest.Incoming{Chat: int64(5000 + i), From: int64(5000 + i), Text: fmt.Sprintf("question %d", i)})
	}
	answered := func() (n int) {
		for i := range people {
			for _, m := range tg.BotMessages(int64(5000 + i)) {
				if m.Visible == fmt.Sprintf("Answer %d.", i) {
					n++
				}
			}
		}
		return n
	}
	// Mid-stream: some answers are out, many are still being written.
	if err := tg.WaitFor(ctx, func() bool { return answered() >= 10 }); err != nil {
		t.Fatalf("no answers: %v\n%s", err, logs)
	}
	leader := pollerPID(t, ctx, url)
	killed := false
	for _, cmd := range replicas {
		if cmd.Process.Pid == leader {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			killed = true
		}
	}
	if !killed {
		t.Fatalf("the poller's pid %d is none of the replicas'", leader)
	}
	inFlight := people - answered()
	if inFlight == 0 {
		t.Fatal("every answer was out before the kill: nothing was mid-stream")
	}

	if err := tg.WaitFor(ctx, func() bool { return answered() == people }); err != nil {
		t.Fatalf("%d of %d answered after the poller was killed (%d were in flight): %v\n%s", answered(), people, inFlight, err, logs)
	}
	for i := range people {
		msgs := tg.BotMessages(int64(5000 + i))
		if len(msgs) != 1 {
			t.Errorf("person %d got %d messages, want exactly one: %+v", i, len(msgs), msgs)
		}
	}
	if n := tg.RateLimited(); n != 0 {
		t.Errorf("Telegram answered %d 429s to the replicas", n)
	}
	// One poller at a time, the failover included: Telegram answers a
	// second concurrent getUpdates with 409 Conflict.
	for _, c := range tg.CallsTo("getUpdates") {
		if c.Status == http.StatusConflict {
			t.Errorf("a getUpdates met 409 Conflict: %s", c.Description)
		}
	}
	t.Logf("%d answers; %d were in flight when the poller died", people, inFlight)
}

// pollerPID is the process id of the replica holding Telegram's receiving
// lease (the replica id is host-pid-random/n).
func pollerPID(t *testing.T, ctx context.Context, url string) int {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var holder string
	if err := conn.QueryRow(ctx, `SELECT holder FROM leases WHERE name = 'receive:telegram'`).Scan(&holder); err != nil {
		t.Fatalf("the receiving lease: %v", err)
	}
	id, _, _ := strings.Cut(holder, "/")
	parts := strings.Split(id, "-")
	pid, err := strconv.Atoi(parts[len(parts)-2])
	if err != nil {
		t.Fatalf("holder %q names no pid", holder)
	}
	return pid
}
