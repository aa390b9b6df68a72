package llm

import "strings"

// Which models can see images, for llm.vision: auto. Sending an image to a
// model that cannot see it fails the whole request (a 400), so a model the
// table does not know counts as blind: its people are told, and the
// operator who knows better sets llm.vision: on.

// visionFamily is one line of the table: models whose name (without the
// provider) starts with prefix see images, or not.
type visionFamily struct {
	prefix string
	sees   bool
}

// visionTable is checked in order, so a narrower prefix ("o1-mini") comes
// before the family it belongs to ("o1"). Names are as the providers
// spell them; for OpenAI-compatible servers (Ollama, vLLM, OpenRouter) the
// vendor part before the last "/" is ignored. A function, not a variable:
// nothing may change the table at run time.
func visionTable() []visionFamily {
	return []visionFamily{
		// OpenAI.
		{"gpt-3.5", false},
		{"gpt-4o", true},
		{"gpt-4.1", true},
		{"gpt-4.5", true},
		{"gpt-4-turbo", true},
		{"gpt-4-vision", true},
		{"gpt-4", false}, // the original gpt-4 and gpt-4-32k take text only
		{"gpt-5", true},
		{"chatgpt-4o", true},
		{"o1-mini", false},
		{"o1-preview", false},
		{"o1", true},
		{"o3-mini", false},
		{"o3", true},
		{"o4-mini", true},
		// Anthropic: every Claude 3 and later model sees. 3.5 Haiku came out
		// text-only; whether it takes images now is unconfirmed, and being
		// wrong the other way fails requests.
		{"claude-3-5-haiku", false},
		{"claude-3", true},
		{"claude-sonnet-4", true},
		{"claude-opus-4", true},
		{"claude-haiku-4", true},
		{"claude-2", false},
		{"claude-instant", false},
		// Open models as local servers name them.
		{"llava", true},
		{"bakllava", true},
		{"llama3.2-vision", true},
		{"llama-3.2-11b-vision", true},
		{"llama-3.2-90b-vision", true},
		{"llama4", true},
		{"llama-4", true},
		{"qwen2.5vl", true},
		{"qwen2.5-vl", true},
		{"qwen2-vl", true},
		{"qwen3-vl", true},
		{"gemma3", true},
		{"gemma-3", true},
		{"pixtral", true},
		{"minicpm-v", true},
		{"moondream", true},
		{"llama", false},
		{"qwen", false},
		{"mistral", false},
		{"mixtral", false},
		{"deepseek", false},
		{"phi", false},
	}
}

// SeesImages reports whether model (as sent to the provider, without the
// "openai/" or "anthropic/" of llm.model) accepts image input, and
// whether the table knows it at all.
func SeesImages(model string) (sees, known bool) {
	name := strings.ToLower(model)
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:] // "meta-llama/llama-4-scout" → "llama-4-scout"
	}
	for _, f := range visionTable() {
		if strings.HasPrefix(name, f.prefix) {
			return f.sees, true
		}
	}
	return false, false
}
