package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/store"
)

// TestBackupOfRunningParleyRestores: `parley backup` (the binary) while
// Parley answers on Telegram and keeps answering, then `parley restore`
// once it is stopped: the restored database holds every message answered
// before the backup began.
func TestBackupOfRunningParleyRestores(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, nil, []telegramtest.Option{telegramtest.WithoutRateLimits()})
	ctx := waitCtx(t)
	const before = 4
	for i := 1; i <= before; i++ {
		w.model.Enqueue(llmtest.Text(fmt.Sprintf("Answer %d.", i)))
		w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: fmt.Sprintf("question %d", i)})
		w.botSays(t, ctx, tgAna, 0, fmt.Sprintf("Answer %d.", i))
	}

	// Bo keeps Parley busy while the backup runs.
	const during = 5
	for i := 1; i <= during; i++ {
		w.model.Enqueue(llmtest.Text(fmt.Sprintf("Busy %d.", i)))
	}
	var load sync.WaitGroup
	load.Go(func() {
		for i := 1; i <= during; i++ {
			w.tg.Post(telegramtest.Incoming{Chat: tgBo, From: tgBo, Text: fmt.Sprintf("busy %d", i)})
			// One at a time: a message during a turn steers it.
			want := fmt.Sprintf("Busy %d.", i)
			if err := w.tg.WaitFor(ctx, func() bool {
				msgs := w.tg.BotMessages(tgBo)
				return len(msgs) > 0 && msgs[len(msgs)-1].Visible == want
			}); err != nil {
				t.Errorf("the bot never answered %q: %v", want, err) // not Fatal: another goroutine
				return
			}
		}
	})
	dataDir := w.cfg.DataDir
	file := filepath.Join(t.TempDir(), "backup.db")
	out, errOut, code := runBinary(t, dataDir, "backup", file)
	if code != 0 || !strings.Contains(out, "backed up") {
		t.Fatalf("parley backup while running: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	load.Wait()
	w.model.Enqueue(llmtest.Text("After the backup."))
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "after"})
	w.botSays(t, ctx, tgAna, 0, "After the backup.")

	if _, errOut, code := runBinary(t, dataDir, "restore", file); code != 1 || !strings.Contains(errOut, "stop Parley before restoring") {
		t.Fatalf("parley restore while running: exit %d, stderr %s", code, errOut)
	}
	w.stop()
	out, errOut, code = runBinary(t, dataDir, "restore", file)
	if code != 0 || !strings.Contains(out, "restored") {
		t.Fatalf("parley restore: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if _, err := store.CheckBackup(ctx, w.cfg.DBPath()); err != nil {
		t.Fatal(err)
	}

	db, err := sql.Open("sqlite3", "file:"+w.cfg.DBPath()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var bodies []string
	rows, err := db.QueryContext(ctx, `SELECT body FROM messages ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	rows.Close()
	all := strings.Join(bodies, "\n")
	for i := 1; i <= before; i++ {
		for _, want := range []string{fmt.Sprintf("question %d", i), fmt.Sprintf("Answer %d.", i)} {
			if !strings.Contains(all, want) {
				t.Errorf("the restored database lacks %q, answered before the backup", want)
			}
		}
	}
	if strings.Contains(all, "After the backup.") {
		t.Error("the restored database has an answer written after the backup")
	}
}

// runBinary runs the parley binary with data_dir set and no config file.
func runBinary(t *testing.T, dataDir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "xdg"), "PARLEY_DATA_DIR=" + dataDir}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run parley: %v", err)
	}
	return out.String(), errOut.String(), code
}
