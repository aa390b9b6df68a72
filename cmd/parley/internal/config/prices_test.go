package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/llm"
)

func TestPricesAndBudgets(t *testing.T) {
	t.Parallel()
	cfg := mustLoadYAML(t, `llm:
  model: openai/gpt-4.1-mini
limits:
  daily_cost: 1.5
budget:
  monthly: 40
providers:
  openai:
    kind: openai
    prices: {gpt-4.1-mini: {input: 0.5, output: 2}}
  local:
    kind: openai
    base_url: http://localhost:11434/v1
    prices: {llama3.2: {input: 0, output: 0}, whisper-large-v3: {per_minute: 0.001}}
  proxy:
    kind: anthropic
    base_url: https://gateway.example/anthropic
  claude:
    kind: anthropic
    base_url: https://api.anthropic.com
`, map[string]string{"OPENAI_API_KEY": "k"})
	if cfg.Limits.DailyCost != 1.5 || cfg.Budget.Monthly != 40 || cfg.Agent(DefaultAgent).Budget.Monthly != 40 {
		t.Errorf("daily_cost %v, budget %v, default agent's %v", cfg.Limits.DailyCost, cfg.Budget.Monthly, cfg.Agent(DefaultAgent).Budget)
	}
	table := cfg.ModelTable()
	for _, tc := range []struct {
		model  string
		want   llm.Price
		priced bool
	}{
		{"openai/gpt-4.1-mini", llm.Price{Input: 0.5, Output: 2}, true},                       // the operator's price
		{"openai/gpt-4o-mini", llm.Price{Input: 0.15, CachedInput: 0.075, Output: 0.6}, true}, // the list price
		{"local/llama3.2", llm.Price{}, true},
		{"local/qwen3", llm.Price{}, false},
		{"local/whisper-large-v3", llm.Price{PerMinute: 0.001}, true},
		{"openai/whisper-1", llm.Price{PerMinute: 0.006}, true},
		{"proxy/claude-sonnet-4-5", llm.Price{}, false}, // not Anthropic's own API
		{"claude/claude-sonnet-4-5", llm.Price{Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15}, true},
	} {
		info := table.Info(tc.model)
		if info.Price != tc.want || info.Priced != tc.priced {
			t.Errorf("%s: price %+v priced %v, want %+v %v", tc.model, info.Price, info.Priced, tc.want, tc.priced)
		}
	}
}

func TestPricesValidation(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, yaml string
		want       []string
	}{
		{"negative and huge", "providers:\n  local: {kind: openai, prices: {a: {input: -1}, b: {output: 20000}}}\n", []string{
			`providers.local.prices: a: input: -1 is out of range; want 0 to 10000 dollars per million tokens`,
		}},
		{"typo", "providers:\n  local: {kind: openai, prices: {a: {inptu: 1}}}\n", []string{
			`providers.local.prices: a: inptu: unknown key; did you mean input?`,
		}},
		{"not a number", "providers:\n  local: {kind: openai, prices: {a: {input: cheap}}}\n", []string{
			`providers.local.prices: a: input: want a number of US dollars per million tokens, got a single value`,
		}},
		{"per minute", "providers:\n  local: {kind: openai, prices: {w: {per_minute: -0.5}}}\n", []string{
			`providers.local.prices: w: per_minute: -0.5 is out of range; want 0 to 10000 dollars per minute of audio`,
		}},
		{"not a mapping", "providers:\n  local: {kind: openai, prices: [1, 2]}\n", []string{
			`providers.local.prices: want a mapping of model names to prices (input, cached_input, cache_write, output), got a list`,
		}},
		{"money out of range", "limits: {daily_cost: -2}\nbudget: {monthly: 2000000}\nllm: {model: hosted/m}\nproviders: {hosted: {kind: openai}}\nagents:\n  eng: {budget: {monthly: -1}}\n", []string{
			`agents.eng.budget.monthly: -1 is out of range; want 0 (no limit) to 1000000 US dollars`,
			`limits.daily_cost: -2 is out of range; want 0 (no limit) to 1000000 US dollars`,
			`budget.monthly: 2000000 is out of range; want 0 (no limit) to 1000000 US dollars`,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := loadYAML(t, tt.yaml, nil)
			ve, ok := err.(*ValidationError)
			if !ok {
				t.Fatalf("Load error = %v (%T), want *ValidationError", err, err)
			}
			if diff := cmp.Diff(tt.want, ve.Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTranscriptionKeys(t *testing.T) {
	t.Parallel()
	cfg := mustLoadYAML(t, "transcription: {model: local/whisper-large-v3, keep: true}\nproviders:\n  local: {kind: openai, base_url: http://localhost:8000/v1}\n", map[string]string{"OPENAI_API_KEY": "k"})
	if cfg.Transcription.Model != "local/whisper-large-v3" || cfg.Transcription.MaxMinutes != DefaultTranscriptionMinutes || !cfg.Transcription.Keep {
		t.Errorf("transcription %+v", cfg.Transcription)
	}
	if cfg := mustLoadYAML(t, "", map[string]string{"OPENAI_API_KEY": "k"}); cfg.Transcription.Model != "" {
		t.Errorf("transcription is on by default: %+v", cfg.Transcription)
	}
	for _, tt := range []struct{ yaml, want string }{
		{"transcription: {model: whisper-1}\n", `transcription.model: "whisper-1" must be provider/model, e.g. openai/whisper-1`},
		{"transcription: {model: nowhere/whisper}\n", `transcription.model: provider "nowhere" in "nowhere/whisper" is not configured`},
		{"transcription: {model: claude/x}\nproviders: {claude: {kind: anthropic}}\n", "transcription.model: the provider claude is of kind anthropic"},
		{"transcription: {max_minutes: 0}\n", "transcription.max_minutes: 0 is out of range"},
		{"transcription: {max_minuets: 5}\n", "transcription.max_minuets: unknown key; did you mean transcription.max_minutes?"},
	} {
		_, err := loadYAML(t, tt.yaml, map[string]string{"OPENAI_API_KEY": "k"})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.yaml, err, tt.want)
		}
	}
}
