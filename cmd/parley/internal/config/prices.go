package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/parleybot/parley/agent/llm"
)

// Prices (docs/costs.md): providers.<name>.prices.<model> sets what a
// model of that server costs, in US dollars per million tokens (or, for a
// speech-to-text model, per_minute: per minute of audio); the vendors'
// own APIs have the built-in list prices (llm.ListPrice).

// priceFields are the keys of one model's price.
var priceFields = []string{"input", "cached_input", "cache_write", "output", "per_minute"}

// maxPrice bounds a price per million tokens: far above any model's, low
// enough that a slip of the decimal point is caught.
const maxPrice = 10000

// setPrices decodes providers.<name>.prices: model names to prices.
func (s *ProviderSettings) setPrices(raw json.RawMessage) error {
	var models map[string]json.RawMessage
	if err := json.Unmarshal(raw, &models); err != nil || models == nil {
		return fmt.Errorf("want a mapping of model names to prices (input, cached_input, cache_write, output), got %s", jsonShape(raw))
	}
	s.Prices = make(map[string]llm.Price, len(models))
	for _, model := range slices.Sorted(maps.Keys(models)) {
		p, err := decodePrice(models[model])
		if err != nil {
			return fmt.Errorf("%s: %w", shownKey(model), err)
		}
		if strings.TrimSpace(model) == "" {
			return fmt.Errorf("a model name is empty")
		}
		s.Prices[model] = p
	}
	return nil
}

// decodePrice reads one model's price, each key a number of dollars per
// million tokens, 0 to maxPrice.
func decodePrice(raw json.RawMessage) (llm.Price, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return llm.Price{}, fmt.Errorf("want a mapping of %s, got %s", orList(priceFields, "and"), jsonShape(raw))
	}
	var p llm.Price
	dst := map[string]*float64{"input": &p.Input, "cached_input": &p.CachedInput, "cache_write": &p.CacheWrite, "output": &p.Output, "per_minute": &p.PerMinute}
	for _, f := range slices.Sorted(maps.Keys(fields)) {
		d, ok := dst[f]
		if !ok {
			if near, ok := nearest(f, priceFields); ok {
				return llm.Price{}, fmt.Errorf("%s: unknown key; did you mean %s?", shownKey(f), near)
			}
			return llm.Price{}, fmt.Errorf("%s: unknown key; want %s", shownKey(f), orList(priceFields, "or"))
		}
		unit := "per million tokens"
		if f == "per_minute" {
			unit = "per minute of audio"
		}
		var v float64
		if err := json.Unmarshal(fields[f], &v); err != nil {
			return llm.Price{}, fmt.Errorf("%s: want a number of US dollars %s, got %s", f, unit, jsonShape(fields[f]))
		}
		if v < 0 || v > maxPrice {
			return llm.Price{}, fmt.Errorf("%s: %s is out of range; want 0 to %d dollars %s", f, strconv.FormatFloat(v, 'f', -1, 64), maxPrice, unit)
		}
		*d = v
	}
	return p, nil
}

// ModelTable is the table of known models with llm.models over it
// (LLM.ModelTable), and the prices: each provider's own, and the list
// prices for the vendors' own APIs (openai and anthropic at their public
// endpoints, whatever their names).
func (c *Config) ModelTable() llm.Models {
	m := c.LLM.ModelTable()
	m.Listed = map[string]bool{}
	for _, name := range c.ProviderNames() {
		s, _ := c.Endpoint(name)
		if vendorAPI(s) {
			m.Listed[name] = true
		}
		for model, p := range s.Prices {
			if m.Prices == nil {
				m.Prices = map[string]llm.Price{}
			}
			m.Prices[name+"/"+model] = p
		}
	}
	return m
}

// vendorAPI reports whether s is OpenAI's or Anthropic's own API, whose
// list prices the built-in table knows.
func vendorAPI(s ProviderSettings) bool {
	host := ""
	if u, err := url.Parse(s.BaseURL); err == nil {
		host = u.Hostname()
	}
	switch s.Kind {
	case KindOpenAI:
		return s.BaseURL == "" || host == "api.openai.com"
	case KindAnthropic:
		return s.BaseURL == "" || host == "api.anthropic.com"
	}
	return false
}

// maxMoney bounds a limit or budget in dollars: higher is no bound an
// operator means (0 is the way to say none).
const maxMoney = 1_000_000

// moneyProblem says what is wrong with an amount of dollars at key.
func moneyProblem(key string, v float64) []string {
	if v < 0 || v > maxMoney {
		return []string{fmt.Sprintf("%s: %s is out of range; want 0 (no limit) to %d US dollars", key, strconv.FormatFloat(v, 'f', -1, 64), maxMoney)}
	}
	return nil
}
