package main

// The operator endpoints through the whole runtime: /metrics, /healthz and
// /readyz on http.listen, fed by a real turn on Telegram.

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// freeAddr is a loopback address nothing listens on (a race with another
// process taking it is possible, and fails the test loudly).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestOperatorEndpoints: with http.listen set, a turn on Telegram shows on
// /metrics, /healthz answers, /readyz says the store answers and Telegram
// is connected — and no secret, id or word anyone wrote shows in any of
// them.
func TestOperatorEndpoints(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	const (
		question = "my plan is XYZZY-QUESTION, keep it between us"
		answer   = "Understood: PLUGH-ANSWER stays here."
	)
	w := startTelegram(t, map[string]string{"PARLEY_HTTP_LISTEN": addr}, []telegramtest.Option{telegramtest.WithoutRateLimits()})
	ctx := waitCtx(t)
	if err := w.tg.WaitFor(ctx, w.tg.Polling); err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr
	if code, body := get(t, base+"/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	if code, body := get(t, base+"/readyz"); code != http.StatusOK || body != "store: ok\ntelegram: connected\n" {
		t.Fatalf("/readyz while polling: %d %q", code, body)
	}

	w.model.Enqueue(llmtest.Text("Understood: ", "PLUGH-ANSWER stays here.").WithUsage(321, 12), llmtest.Text("Second."))
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: question})
	w.botSays(t, ctx, tgAna, 0, answer)
	// The conversation's next turn starts only once the first has ended,
	// counts included: its answer is the sign that they are in.
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "and now?"})
	w.botSays(t, ctx, tgAna, 0, "Second.")

	code, text := get(t, base+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for series, least := range map[string]float64{
		`parley_turns_total{outcome="answered",platform="telegram"}`:              1,
		`parley_inbound_to_model_seconds_count{platform="telegram"}`:              1,
		`parley_final_visible_seconds_count{platform="telegram"}`:                 1,
		`parley_model_tokens_total{direction="in"}`:                               321,
		`parley_model_requests_total`:                                             2,
		`parley_platform_requests_total{method="getUpdates",platform="telegram"}`: 1,
		`parley_turns_running`:                                                    0,
		`parley_approvals_pending`:                                                0,
		`parley_reminders_due`:                                                    0,
		`parley_store_waits_total{pool="writer"}`:                                 0,
		`parley_store_commits_total`:                                              1,
		`go_goroutines`:                                                           1,
		`process_resident_memory_bytes`:                                           1,
	} {
		if v, ok := value(text, series); !ok || v < least {
			t.Errorf("%s = %v (present %v), want at least %v", series, v, ok, least)
		}
	}
	_, ready := get(t, base+"/readyz")
	_, health := get(t, base+"/healthz")
	secrets := []string{w.tg.Token(), strings.SplitN(w.tg.Token(), ":", 2)[1], "sk-test", w.model.URL,
		"XYZZY", "PLUGH", "Second.", "and now", "Ana", "ana"}
	for name, body := range map[string]string{"/metrics": text, "/readyz": ready, "/healthz": health} {
		if found := secretsIn(body, secrets...); len(found) > 0 {
			t.Errorf("%s shows %q", name, found)
		}
	}
	// Ids are numbers, which values may be: they must not be labels.
	if found := secretsIn(labels(text), strconv.FormatInt(tgAna, 10)); len(found) > 0 {
		t.Errorf("a label names Ana's id: %s", labels(text))
	}
}

// value reads series' value from a Prometheus text exposition.
func value(text, series string) (float64, bool) {
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

// labels is every label set of text's series.
func labels(text string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if i, j := strings.Index(l, "{"), strings.LastIndex(l, "}"); !strings.HasPrefix(l, "#") && i >= 0 && j > i {
			out = append(out, l[i:j+1])
		}
	}
	return strings.Join(out, "\n")
}

// TestOperatorEndpointsOffByDefault: without http.listen nothing is
// served, unless a webhook needs the listener — and then only the
// webhook.
func TestOperatorEndpointsOffByDefault(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer()
	t.Cleanup(model.Close)
	quiet := slog.New(slog.DiscardHandler)
	for _, tt := range []struct {
		name    string
		env     map[string]string
		serves  bool
		address string
		ops     bool
	}{
		{"polling, no http.listen", map[string]string{"PARLEY_TELEGRAM_ENABLED": "true", "PARLEY_TELEGRAM_TOKEN": "1:x"}, false, "", false},
		{"webhook, no http.listen", map[string]string{"PARLEY_TELEGRAM_ENABLED": "true", "PARLEY_TELEGRAM_TOKEN": "1:x",
			"PARLEY_TELEGRAM_MODE": "webhook", "PARLEY_TELEGRAM_WEBHOOK_URL": "https://example.com/tg"}, true, config.DefaultListen, false},
		{"http.listen set", map[string]string{"PARLEY_TELEGRAM_ENABLED": "true", "PARLEY_TELEGRAM_TOKEN": "1:x",
			"PARLEY_HTTP_LISTEN": "127.0.0.1:9"}, true, "127.0.0.1:9", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := platformConfig(t, t.TempDir(), model, tt.env)
			web := inboundServer(cfg, quiet)
			if (web != nil) != tt.serves || cfg.HTTP.Ops() != tt.ops || (tt.serves && cfg.HTTP.Address() != tt.address) {
				t.Fatalf("server %v (want %v), ops %v (want %v), address %q (want %q)",
					web != nil, tt.serves, cfg.HTTP.Ops(), tt.ops, cfg.HTTP.Address(), tt.address)
			}
			if (newOperator(cfg) != nil) != tt.ops {
				t.Fatalf("operator %v, want %v", newOperator(cfg) != nil, tt.ops)
			}
		})
	}
}

// secretsIn lists which of secrets text contains.
func secretsIn(text string, secrets ...string) []string {
	var found []string
	for _, s := range secrets {
		if s != "" && strings.Contains(text, s) {
			found = append(found, s)
		}
	}
	return found
}
