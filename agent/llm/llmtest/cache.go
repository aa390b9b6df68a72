package llmtest

import (
	"crypto/sha256"
	"encoding/json"
	"sync"
)

// The fake's prompt cache. Its accounting is simple and faithful to what
// each provider promises, so a test can tell a prompt that caches from one
// that does not, and measure what caching saves:
//
//   - Anthropic caches the prompt (tools, system, messages, in that order)
//     up to each block marked with cache_control, once that prefix is at
//     least CacheMinTokens long. A request reads from the cache the
//     longest prefix, ending at a block boundary no later than its last
//     mark, that is byte for byte one written before for the same model;
//     it writes the rest up to its last mark. cache_control itself is not
//     part of what is compared: moving a mark invalidates nothing.
//   - OpenAI caches every prompt of at least CacheMinTokens tokens; a
//     request reads the longest prefix it shares with an earlier request
//     to the same model, rounded down to whole blocks of CacheMinTokens
//     (OpenAI itself counts past the first 1,024 in steps of 128, so the
//     fake errs low). The prompt is read as OpenAI renders it: the
//     leading system (or developer) messages, the tools, the rest.
//
// Tokens are counted as everywhere in the fake: one per 4 bytes of JSON.
// Scripted usage (Reply.Usage) is reported as scripted, but the prompt
// still enters the cache.
const CacheMinTokens = 1024

// promptCache is the server's cache state.
type promptCache struct {
	mu        sync.Mutex
	anthropic map[[32]byte]int // prefix hash (model, blocks) → its tokens
	// openAI holds, by model, every prefix of whole CacheMinTokens
	// blocks of the prompts seen, as a chain of hashes (blockHashes): the
	// answer is in whole blocks, so a prefix of those is all a request
	// can read, and a lookup costs one pass over the prompt however many
	// came before.
	openAI map[string]map[[32]byte]struct{}
}

func tokens(n int) int { return n / 4 }

// account returns the cached and written tokens of req, and records its
// prompt for the requests that follow.
func (c *promptCache) account(req Request, anthropicAPI bool) (read, write int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if anthropicAPI {
		return c.anthropicAccount(req)
	}
	return c.openAIAccount(req), 0
}

func (c *promptCache) anthropicAccount(req Request) (read, write int) {
	if c.anthropic == nil {
		c.anthropic = map[[32]byte]int{}
	}
	blocks, marks := anthropicBlocks(req.JSON)
	last := -1
	for i, m := range marks {
		if m {
			last = i
		}
	}
	h := sha256.Sum256([]byte(req.Model()))
	size := 0
	var hashes [][32]byte
	var sizes []int
	for _, b := range blocks[:last+1] {
		h = sha256.Sum256(append(h[:], b...))
		size += len(b)
		hashes, sizes = append(hashes, h), append(sizes, tokens(size))
	}
	for i := last; i >= 0; i-- {
		if n, ok := c.anthropic[hashes[i]]; ok {
			read = n
			break
		}
	}
	for i := range hashes {
		if marks[i] && sizes[i] >= CacheMinTokens {
			c.anthropic[hashes[i]] = sizes[i]
			write = max(sizes[i]-read, write)
		}
	}
	return read, write
}

// anthropicBlocks lists a Messages request's prompt as blocks in the
// order the API caches them, each canonical JSON without its
// cache_control, and which of them carried one.
func anthropicBlocks(body map[string]any) (blocks [][]byte, marks []bool) {
	add := func(prefix string, v any) {
		m, ok := v.(map[string]any)
		mark := false
		if ok {
			_, mark = m["cache_control"]
			clean := make(map[string]any, len(m))
			for k, x := range m {
				if k != "cache_control" {
					clean[k] = x
				}
			}
			v = clean
		}
		b, _ := json.Marshal(v) // maps marshal with sorted keys: canonical
		blocks = append(blocks, append([]byte(prefix), b...))
		marks = append(marks, mark)
	}
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		add("tool:", t)
	}
	switch s := body["system"].(type) {
	case string:
		add("system:", s)
	case []any:
		for _, b := range s {
			add("system:", b)
		}
	}
	msgs, _ := body["messages"].([]any)
	for _, x := range msgs {
		m, _ := x.(map[string]any)
		role, _ := m["role"].(string)
		switch content := m["content"].(type) {
		case string:
			add(role+":", content)
		case []any:
			for i, b := range content {
				// The role opens each message: the same blocks in
				// another message are another prompt.
				prefix := ""
				if i == 0 {
					prefix = role + ":"
				}
				add(prefix, b)
			}
		}
	}
	return blocks, marks
}

func (c *promptCache) openAIAccount(req Request) int {
	if c.openAI == nil {
		c.openAI = map[string]map[[32]byte]struct{}{}
	}
	msgs, _ := req.JSON["messages"].([]any)
	lead := 0
	for lead < len(msgs) {
		m, _ := msgs[lead].(map[string]any)
		if m["role"] != "system" && m["role"] != "developer" {
			break
		}
		lead++
	}
	system, _ := json.Marshal(msgs[:lead])
	tools, _ := json.Marshal(req.JSON["tools"])
	rest, _ := json.Marshal(msgs[lead:])
	prompt := append(append(system, tools...), rest...)
	seen := c.openAI[req.Model()]
	if seen == nil {
		seen = map[[32]byte]struct{}{}
		c.openAI[req.Model()] = seen
	}
	blocks, shared := blockHashes(prompt), 0
	for shared < len(blocks) {
		if _, ok := seen[blocks[shared]]; !ok {
			break
		}
		shared++
	}
	for _, h := range blocks[shared:] {
		seen[h] = struct{}{}
	}
	return shared * CacheMinTokens
}

// blockHashes identifies each prefix of prompt that is a whole number of
// CacheMinTokens blocks: the i-th hash covers blocks 0..i, chained so
// that two prompts share it only when they share all those bytes.
func blockHashes(prompt []byte) [][32]byte {
	const block = 4 * CacheMinTokens // bytes, at one token per 4
	var out [][32]byte
	var prev [32]byte
	for end := block; end <= len(prompt); end += block {
		prev = sha256.Sum256(append(prev[:], prompt[end-block:end]...))
		out = append(out, prev)
	}
	return out
}
