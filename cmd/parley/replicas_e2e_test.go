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
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/adapters/slack/slacktest"
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

// replicasRig is three `parley run` processes of the real binary on one
// PostgreSQL database, with env for their platform and the fake model.
type replicasRig struct {
	cmds []*exec.Cmd
	logs *syncbuf.Buffer
	url  string
}

func startReplicas(t *testing.T, ctx context.Context, n int, model *llmtest.Server, env ...string) *replicasRig {
	t.Helper()
	rig := &replicasRig{logs: &syncbuf.Buffer{}, url: pgtest.NewDatabase(t)}
	for range n {
		sb := newSandbox(t, append([]string{
			"PARLEY_STORE_DRIVER=postgres",
			"PARLEY_STORE_POSTGRES_URL=" + rig.url,
			"PARLEY_STORE_LEASE_SECONDS=3",
			"PARLEY_LLM_MAX_CONCURRENT=64",
			"PARLEY_EVOLUTION_ENABLED=false",
		}, env...)...).withLLM(model)
		cmd := sb.command(ctx, "run")
		cmd.Stdout, cmd.Stderr = rig.logs, rig.logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		rig.cmds = append(rig.cmds, cmd)
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		})
	}
	return rig
}

// kill SIGKILLs the replica with process id pid.
func (rig *replicasRig) kill(t *testing.T, pid int) {
	t.Helper()
	for _, cmd := range rig.cmds {
		if cmd.Process.Pid == pid {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			return
		}
	}
	t.Fatalf("pid %d is none of the replicas'", pid)
}

// TestReplicasShareTheWork: 200 people each ask once while three replicas
// run on one PostgreSQL database. The replica receiving from Telegram (the
// elected poller) is killed with SIGKILL while turns are mid-stream. Its
// leases expire, another replica takes over polling and resumes the
// unfinished turns from the store: every person gets an answer, the right
// one, nothing is lost, and the replicas together draw no 429 and no 409
// (two pollers) from Telegram. Telegram offers no way to make a send
// idempotent, so a replica killed between a sendMessage and the record of
// its result leaves that answer to be sent again (docs/architecture.md,
// "One reply, one message"): only answers sent as the replica died may
// show twice. TestReplicasOnSlackExactlyOnce is the same with none.
func TestReplicasShareTheWork(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three replicas")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()

	const people = 200
	// When each chat was sent a message, as the fake answered it.
	var sendsMu sync.Mutex
	sends := map[string][]time.Time{}
	tg := telegramtest.NewServer(telegramtest.WithCallObserver(func(c telegramtest.Call) {
		if c.Method == "sendMessage" && c.Status == http.StatusOK {
			sendsMu.Lock()
			sends[c.Params["chat_id"]] = append(sends[c.Params["chat_id"]], time.Now())
			sendsMu.Unlock()
		}
	}))
	t.Cleanup(tg.Close)
	ids := make([]string, people)
	for i := range people {
		id := int64(5000 + i)
		tg.AddUser(id, fmt.Sprintf("P%d", i), fmt.Sprintf("p%d", i))
		ids[i] = strconv.FormatInt(id, 10)
	}
	model := llmtest.NewServer(llmtest.WithResponder(answerTo))
	t.Cleanup(model.Close)
	rig := startReplicas(t, ctx, 3, model,
		"PARLEY_TELEGRAM_ENABLED=true",
		"PARLEY_TELEGRAM_TOKEN="+tg.Token(),
		"PARLEY_TELEGRAM_API_URL="+tg.URL,
		"PARLEY_ACCESS_TELEGRAM_ALLOW_USERS="+strings.Join(ids, ","))
	if err := tg.WaitFor(ctx, tg.Polling); err != nil {
		t.Fatalf("no replica polls: %v\n%s", err, rig.logs)
	}

	for i := range people {
		tg.Post(telegramtest.Incoming{Chat: int64(5000 + i), From: int64(5000 + i), Text: fmt.Sprintf("question %d", i)})
	}
	answers := func(i int) (right, all int) {
		for _, m := range tg.BotMessages(int64(5000 + i)) {
			all++
			if m.Visible == fmt.Sprintf("Answer %d.", i) {
				right++
			}
		}
		return right, all
	}
	answered := func() int { return peopleAnswered(people, answers) }
	// Mid-stream: some answers are out, many are still being written.
	if err := tg.WaitFor(ctx, func() bool { return answered() >= 10 }); err != nil {
		t.Fatalf("no answers: %v\n%s", err, rig.logs)
	}
	killedAt := time.Now()
	rig.kill(t, leaseHolderPID(t, ctx, rig.url, "receive:telegram"))
	inFlight := people - answered()
	if inFlight == 0 {
		t.Fatal("every answer was out before the kill: nothing was mid-stream")
	}

	if err := tg.WaitFor(ctx, func() bool { return answered() == people }); err != nil {
		t.Fatalf("%d of %d answered after the poller was killed (%d were in flight): %v\n%s", answered(), people, inFlight, err, rig.logs)
	}
	twice := 0
	for i := range people {
		right, all := answers(i)
		switch {
		case all != right:
			t.Errorf("person %d got %d messages, %d of them the answer", i, all, right)
		case right > 1:
			twice++
			// Only an answer whose send was under way when the replica
			// died may be sent again: its first copy went out then.
			sendsMu.Lock()
			first := sends[strconv.Itoa(5000+i)][0]
			sendsMu.Unlock()
			if d := first.Sub(killedAt); d < -time.Second || d > time.Second {
				t.Errorf("person %d got the answer twice, the first %s from the kill: not a send the kill cut short", i, d)
			}
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
	t.Logf("%d answers; %d were in flight when the poller died; %d sent twice", people, inFlight, twice)
}

// TestReplicasOnSlackExactlyOnce: the same on Slack, where every replica
// receives (the fake spreads the events over their Socket Mode
// connections) and a create is findable after a crash (the reply's key in
// the message metadata): one replica is killed with SIGKILL mid-stream,
// and every person gets exactly one message, the right answer, with no
// 429 from the replicas together.
func TestReplicasOnSlackExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three replicas")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()

	const people = 200
	slk := slacktest.NewServer()
	t.Cleanup(slk.Close)
	dms := make([]string, people)
	for i := range people {
		id := fmt.Sprintf("UREP%04d", i)
		slk.AddUser(id, fmt.Sprintf("p%d", i))
		dms[i] = "D" + id
		slk.AddChannel(dms[i], dms[i], slacktest.IM)
	}
	model := llmtest.NewServer(llmtest.WithResponder(answerTo))
	t.Cleanup(model.Close)
	rig := startReplicas(t, ctx, 3, model,
		"PARLEY_SLACK_ENABLED=true",
		"PARLEY_SLACK_BOT_TOKEN="+slk.BotToken(),
		"PARLEY_SLACK_APP_TOKEN="+slk.AppToken(),
		"PARLEY_SLACK_API_URL="+slk.URL+"/")
	if err := slk.WaitFor(ctx, func() bool { return slk.OpenConnections() == 3 }); err != nil {
		t.Fatalf("the replicas did not all connect: %v\n%s", err, rig.logs)
	}

	for i := range people {
		slk.PostUserMessage(dms[i], fmt.Sprintf("UREP%04d", i), fmt.Sprintf("question %d", i), "")
	}
	answers := func(i int) (right, all int) {
		for _, m := range slk.Messages(dms[i]) {
			if m.BotID == "" {
				continue
			}
			all++
			if m.Visible() == fmt.Sprintf("Answer %d.", i) && !m.Streaming {
				right++
			}
		}
		return right, all
	}
	answered := func() int { return peopleAnswered(people, answers) }
	if err := slk.WaitFor(ctx, func() bool { return answered() >= 10 }); err != nil {
		t.Fatalf("no answers: %v\n%s", err, rig.logs)
	}
	rig.kill(t, rig.cmds[0].Process.Pid)
	inFlight := people - answered()
	if inFlight == 0 {
		t.Fatal("every answer was out before the kill: nothing was mid-stream")
	}
	if err := slk.WaitFor(ctx, func() bool { return answered() == people }); err != nil {
		t.Fatalf("%d of %d answered after a replica was killed (%d were in flight): %v\n%s", answered(), people, inFlight, err, rig.logs)
	}
	for i := range people {
		if right, all := answers(i); right != 1 || all != 1 {
			t.Errorf("person %d got %d messages, %d of them the answer; want exactly one", i, all, right)
		}
	}
	limited := 0
	for _, c := range slk.Calls() {
		if c.Status == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited != 0 {
		t.Errorf("Slack answered %d rate-limit errors to the replicas", limited)
	}
	t.Logf("%d answers; %d were in flight when a replica died", people, inFlight)
}

// peopleAnswered counts the people of whom answers(i) finds at least one
// right answer.
func peopleAnswered(people int, answers func(i int) (right, all int)) (n int) {
	for i := range people {
		if right, _ := answers(i); right > 0 {
			n++
		}
	}
	return n
}

// leaseHolderPID is the process id of the replica holding lease name (the
// replica id is host-pid-random/n).
func leaseHolderPID(t *testing.T, ctx context.Context, url, name string) int {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var holder string
	if err := conn.QueryRow(ctx, `SELECT holder FROM leases WHERE name = $1`, name).Scan(&holder); err != nil {
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
