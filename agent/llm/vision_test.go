package llm

import "testing"

func TestSeesImages(t *testing.T) {
	for _, tc := range []struct {
		model       string
		sees, known bool
	}{
		{"gpt-4.1-mini", true, true},
		{"gpt-4o-2024-08-06", true, true},
		{"gpt-5.2", true, true},
		{"gpt-4", false, true},
		{"gpt-4-turbo", true, true},
		{"gpt-3.5-turbo", false, true},
		{"o1-mini", false, true},
		{"o1", true, true},
		{"o3-mini", false, true},
		{"o4-mini", true, true},
		{"claude-sonnet-4-5", true, true},
		{"claude-3-5-haiku-latest", false, true},
		{"claude-3-7-sonnet-latest", true, true},
		{"Qwen/Qwen2.5-VL-7B-Instruct", true, true}, // vendor part ignored, case too
		{"Qwen/Qwen2.5-7B-Instruct", false, true},
		{"llama3.2", false, true},
		{"llama3.2-vision", true, true},
		{"meta-llama/llama-4-scout", true, true},
		{"anthropic/claude-sonnet-4.5", true, true}, // OpenRouter
		{"my-finetune", false, false},
	} {
		sees, known := SeesImages(tc.model)
		if sees != tc.sees || known != tc.known {
			t.Errorf("SeesImages(%q) = %v, %v; want %v, %v", tc.model, sees, known, tc.sees, tc.known)
		}
	}
}
