package llm

import (
	"math"
	"time"
)

// Price is what a model charges, in US dollars per million tokens, as
// the vendors publish it.
type Price struct {
	Input float64 `json:"input"`
	// CachedInput is a prompt token read from the provider's cache; 0
	// charges it as Input.
	CachedInput float64 `json:"cached_input"`
	// CacheWrite is a prompt token written to the cache (Anthropic); 0
	// charges it as Input.
	CacheWrite float64 `json:"cache_write"`
	Output     float64 `json:"output"`
	// PerMinute is what a minute of audio costs a speech-to-text model
	// (transcription.model), in US dollars; such models charge no tokens.
	PerMinute float64 `json:"per_minute,omitempty"`
}

// AudioNanos is what d of audio costs at p, in billionths of a dollar,
// rounded to the nearest: by the second, as the vendors bill.
func (p Price) AudioNanos(d time.Duration) int64 {
	secs := math.Ceil(d.Seconds())
	return int64(math.Round(p.PerMinute * secs / 60 * 1e9))
}

// Nanos is what u costs at p, in billionths of a dollar. Each price is
// first made a whole number of picodollars a token ($1 per million
// tokens is 10⁶ of them; exact for prices of up to six decimals), so the
// sum is integer arithmetic, rounded once to the nearest nanodollar.
func (p Price) Nanos(u Usage) int64 {
	in := picos(p.Input)
	cached, write := in, in // unset: charged as Input
	if p.CachedInput != 0 {
		cached = picos(p.CachedInput)
	}
	if p.CacheWrite != 0 {
		write = picos(p.CacheWrite)
	}
	// InputTokens counts the whole prompt, cached and written tokens
	// included (Usage).
	plain := int64(max(u.InputTokens-u.CachedTokens-u.CacheWriteTokens, 0))
	sum := plain*in + int64(u.CachedTokens)*cached + int64(u.CacheWriteTokens)*write + int64(u.OutputTokens)*picos(p.Output)
	return (sum + 500) / 1000
}

// picos is a price per million tokens as picodollars a token.
func picos(perMillion float64) int64 { return int64(math.Round(perMillion * 1e6)) }

// listPrices are the vendors' list prices of the families of the
// known-model table (and of the smaller models that share a family's
// limits but not its price), by name prefix as in known. They apply to
// the vendors' own APIs only (Models.Listed): the same name served by
// another endpoint costs what that endpoint charges.
var listPrices = map[string]Price{
	"gpt-5":         {Input: 1.25, CachedInput: 0.125, Output: 10},
	"gpt-5-mini":    {Input: 0.25, CachedInput: 0.025, Output: 2},
	"gpt-5-nano":    {Input: 0.05, CachedInput: 0.005, Output: 0.4},
	"gpt-4.1":       {Input: 2, CachedInput: 0.5, Output: 8},
	"gpt-4.1-mini":  {Input: 0.4, CachedInput: 0.1, Output: 1.6},
	"gpt-4.1-nano":  {Input: 0.1, CachedInput: 0.025, Output: 0.4},
	"gpt-4o":        {Input: 2.5, CachedInput: 1.25, Output: 10},
	"gpt-4o-mini":   {Input: 0.15, CachedInput: 0.075, Output: 0.6},
	"gpt-4-turbo":   {Input: 10, Output: 30},
	"gpt-4":         {Input: 30, Output: 60},
	"gpt-3.5-turbo": {Input: 0.5, Output: 1.5},
	"o1":            {Input: 15, CachedInput: 7.5, Output: 60},
	"o1-mini":       {Input: 1.1, CachedInput: 0.55, Output: 4.4},
	"o3":            {Input: 2, CachedInput: 0.5, Output: 8},
	"o3-mini":       {Input: 1.1, CachedInput: 0.55, Output: 4.4},
	"o4-mini":       {Input: 1.1, CachedInput: 0.275, Output: 4.4},

	"claude-opus-4-5":   {Input: 5, CachedInput: 0.5, CacheWrite: 6.25, Output: 25},
	"claude-opus-4-1":   {Input: 15, CachedInput: 1.5, CacheWrite: 18.75, Output: 75},
	"claude-opus-4":     {Input: 15, CachedInput: 1.5, CacheWrite: 18.75, Output: 75},
	"claude-sonnet-4-5": {Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15},
	"claude-sonnet-4":   {Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15},
	"claude-haiku-4-5":  {Input: 1, CachedInput: 0.1, CacheWrite: 1.25, Output: 5},
	"claude-3-7-sonnet": {Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15},
	"claude-3-5-sonnet": {Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15},
	"claude-3-5-haiku":  {Input: 0.8, CachedInput: 0.08, CacheWrite: 1, Output: 4},
	"claude-3-opus":     {Input: 15, CachedInput: 1.5, CacheWrite: 18.75, Output: 75},
	"claude-3-haiku":    {Input: 0.25, CachedInput: 0.03, CacheWrite: 0.3, Output: 1.25},

	// Speech to text, by the minute of audio.
	"whisper-1":              {PerMinute: 0.006},
	"gpt-4o-transcribe":      {PerMinute: 0.006},
	"gpt-4o-mini-transcribe": {PerMinute: 0.003},
}

// ListPrice is the vendor's list price of a model name (with or without
// its provider), and whether the table has one.
func ListPrice(name string) (Price, bool) { return byFamily(listPrices, name) }

// Price is what a call to name ("provider/model") costs: the operator's
// price for it, else the list price where the provider is the vendor's
// own API; ok is false when neither is known.
func (m Models) Price(name string) (Price, bool) { return m.price(name) }

// price is what a call to name ("provider/model") costs: the operator's
// price for it, else the list price where the provider is the vendor's
// own API; ok is false when neither is known.
func (m Models) price(name string) (Price, bool) {
	if p, ok := m.Prices[name]; ok {
		return p, true
	}
	provider, _, err := SplitModel(name)
	if err != nil || !m.Listed[provider] {
		return Price{}, false
	}
	return ListPrice(name)
}
