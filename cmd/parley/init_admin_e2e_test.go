package main

import (
	"bufio"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/cmd/parley/internal/platforms"
)

// TestInitAdminFromDM: parley init --admin-from-dm shows a code, ignores
// a direct message without it (a stranger who found the bot), makes the
// sender of the code the admin, answers them through the bot, and the
// Parley started on the file it wrote does not answer that message again.
func TestInitAdminFromDM(t *testing.T) {
	tg, model, path, lookup := initWorld(t)
	tg.AddUser(tgAna, "Ana", "ana")
	tg.AddUser(tgBo, "Bo", "bo")
	args := []string{"--config", path, "init", "--yes", "--platform", "telegram", "--telegram-token", tg.Token(),
		"--model", "openai/gpt-test", "--openai-api-key", "sk-test", "--admin-from-dm"}

	pr, pw := io.Pipe()
	e := &environment{stdin: strings.NewReader(""), stdout: pw, stderr: pw, lookupEnv: lookup}
	exited := make(chan int, 1)
	go func() {
		exited <- execute(t.Context(), e, args)
		pw.Close()
	}()
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		s := bufio.NewScanner(pr)
		for s.Scan() {
			lines <- s.Text()
		}
	}()
	codeLine := regexp.MustCompile(`^\s+parley-admin (\d{6})$`)
	var code string
	var out strings.Builder
	for line := range lines {
		out.WriteString(line + "\n")
		if m := codeLine.FindStringSubmatch(line); m != nil {
			code = m[1]
			break
		}
	}
	if code == "" {
		t.Fatalf("init showed no code:\n%s", out.String())
	}
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	tg.Post(telegramtest.Incoming{Chat: tgBo, From: tgBo, Text: "parley-admin " + wrong})
	tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "parley-admin " + code})
	for line := range lines {
		out.WriteString(line + "\n")
	}
	if code := <-exited; code != 0 || !strings.Contains(out.String(), "Got it: telegram:101 (Ana) is the admin.") {
		t.Fatalf("exit %d, output:\n%s", code, out.String())
	}
	if got := tg.BotMessages(tgBo); len(got) != 0 {
		t.Fatalf("a message without the code was answered: %+v", got)
	}
	w := &tgWorld{tg: tg, model: model}
	w.botSays(t, waitCtx(t), tgAna, 0, "You are telegram:101, Parley's admin once set-up finishes. Back to the terminal.")
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("config: %v", err)
	}
	cfg, err := config.Load(config.LoadOptions{Path: path, Env: lookup, Platforms: platforms.All()})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Access.Admins) != 1 || cfg.Access.Admins[0] != "telegram:101" {
		t.Fatalf("admins %q, want telegram:101", cfg.Access.Admins)
	}

	// Parley on that file answers what comes next, and only that.
	checks := len(model.Requests()) // init's own model check
	w.instance = startInstance(t, cfg)
	model.Enqueue(llmtest.Text("Hello, admin."))
	tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "hi"})
	w.botSays(t, waitCtx(t), tgAna, 0, "Hello, admin.")
	if got := tg.BotMessages(tgAna); len(got) != 2 {
		t.Fatalf("Ana's chat holds %d bot messages, want the code's answer and one reply: %+v", len(got), got)
	}
	if n := len(model.Requests()) - checks; n != 1 {
		t.Fatalf("the model was asked %d times, want once (the code message is init's, not a question)", n)
	}
}

// TestInitAdminFromDMGivesUp: nobody sends the code, and init gives up
// when --admin-wait runs out, writing nothing; without a platform the
// flag is refused before anything is checked.
func TestInitAdminFromDMGivesUp(t *testing.T) {
	tg, _, path, lookup := initWorld(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"nobody writes", []string{"--platform", "telegram", "--telegram-token", tg.Token(), "--admin-wait", "200ms"},
			"no direct message with the code came within 200ms"},
		{"no platform", []string{"--platform", "none"}, "--admin-from-dm needs a chat platform"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &out, lookupEnv: lookup}
			args := append([]string{"--config", path, "init", "--yes", "--model", "openai/gpt-test", "--openai-api-key", "sk-test", "--admin-from-dm"}, tc.args...)
			if code := execute(t.Context(), e, args); code != 1 || !strings.Contains(out.String(), tc.want) {
				t.Fatalf("exit %d, output:\n%s", code, out.String())
			}
			if _, err := os.Stat(path); err == nil {
				t.Fatal("a failed init wrote the config")
			}
		})
	}
}
