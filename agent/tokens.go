package agent

import (
	"math"
	"sync"
	"unicode"

	"github.com/parleybot/parley/agent/llm"
)

// Per-rune weights fitted to the o200k tokenizer on English, Chinese,
// Japanese, Korean, Go code and mixed text (agent/testdata/tokens): CJK runs
// ~0.7–0.8 tokens per character, ASCII words ~4.5 letters per token, ASCII
// punctuation mostly a token each, whitespace mostly merged into words.
const (
	weightCJK    = 0.75
	weightAlnum  = 0.22
	weightPunct  = 0.9
	weightOther  = 0.6 // accented Latin, Cyrillic, emoji…
	safetyMargin = 1.1 // over- rather than under-estimate
	perMessage   = 4   // role and framing tokens of each message
)

// EstimateTokens estimates how many tokens s takes, weighting CJK text
// properly (a character-count/4 rule under-counts Chinese by 3×).
func EstimateTokens(s string) int {
	var w float64
	for _, r := range s {
		switch {
		case r < 0x80:
			switch {
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
				w += weightAlnum
			case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			default:
				w += weightPunct
			}
		case isCJK(r):
			w += weightCJK
		default:
			w += weightOther
		}
	}
	return int(math.Ceil(w * safetyMargin))
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303F) || // CJK symbols and punctuation
		(r >= 0xFF00 && r <= 0xFFEF) // full-width forms
}

// EstimateRequest estimates the prompt tokens of a whole request.
func EstimateRequest(req llm.Request) int {
	// Tail is sent after the conversation on every step (the plan, the
	// step budget): a window check that left it out would under-count.
	n := EstimateTokens(req.System) + EstimateTokens(req.Tail)
	for _, t := range req.Tools {
		n += EstimateTokens(t.Name) + EstimateTokens(t.Description) + EstimateTokens(string(t.Schema))
	}
	return n + EstimateMessages(req.Messages)
}

// EstimateMessages estimates the tokens of a transcript.
func EstimateMessages(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += EstimateMessage(m)
	}
	return n
}

// EstimateMessage estimates the tokens of one message. Thinking blocks
// are not counted: providers drop those of earlier turns from the prompt.
func EstimateMessage(m llm.Message) int {
	n := perMessage + EstimateTokens(m.Text) + EstimateTokens(m.Preamble)
	for _, c := range m.ToolCalls {
		n += perMessage + EstimateTokens(c.Name) + EstimateTokens(string(c.Arguments))
	}
	for _, img := range m.Images {
		n += imageTokens(img)
	}
	return n
}

// Calibration scales estimates by what a provider actually counted: each
// model's tokenizer differs (Claude and cl100k count CJK ~1.5× o200k), and
// usage numbers come back with every answer. Safe for concurrent use; the
// zero value is ready and starts uncalibrated.
type Calibration struct {
	mu    sync.Mutex
	ratio float64 // actual ÷ estimate, as an exponential moving average
}

// Scale applies the calibration to a raw estimate.
func (c *Calibration) Scale(estimate int) int {
	c.mu.Lock()
	r := c.ratio
	c.mu.Unlock()
	if r == 0 {
		return estimate
	}
	return int(math.Ceil(float64(estimate) * r))
}

// Observe records that a request estimated at estimate was counted as
// actual tokens by the provider.
func (c *Calibration) Observe(estimate, actual int) {
	if estimate <= 0 || actual <= 0 {
		return // a provider that reports no usage teaches nothing
	}
	// Clamp single observations so one odd answer cannot swing compaction.
	r := min(max(float64(actual)/float64(estimate), 0.5), 3)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ratio == 0 {
		c.ratio = r
		return
	}
	const alpha = 0.3
	c.ratio = alpha*r + (1-alpha)*c.ratio
}
