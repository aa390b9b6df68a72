package guard

import (
	"context"

	"github.com/parleybot/parley/agent/llm"
)

// LLMClassifier adapts an llm.Provider to Classifier: one model call with
// the question as the system prompt and the material as the only user
// message, no tools, asking for the structured verdict (JudgeFormat); the
// answer is the structured one (JSON) or, from a server that ignored the
// format, the text. A server that refuses the format (HTTP 400) is asked
// once more without it.
type LLMClassifier struct {
	Provider llm.Provider
	// Request holds the model settings: Model (without the provider
	// prefix) and MaxTokens (0 means judgeMaxTokens, plenty for a
	// verdict). Its System, Messages and Tools are replaced on each call.
	Request llm.Request
}

// judgeMaxTokens caps the answer: {"verdict": "unsafe", "reason": "<a
// short reason>"} fits, and a model that rambles gets cut off (and fails
// the strict format) early.
const judgeMaxTokens = 200

// Classify implements Classifier. Errors are the provider's (*llm.Error
// where it answered) or the context's.
func (c LLMClassifier) Classify(ctx context.Context, system, user string) (string, error) {
	req := c.Request
	req.System = system
	req.Messages = []llm.Message{{Role: llm.RoleUser, Text: user}}
	req.Tools = nil
	req.Format = JudgeFormat
	if req.MaxTokens == 0 {
		req.MaxTokens = judgeMaxTokens
	}
	resp, err := llm.Collect(c.Provider.Stream(ctx, req))
	if e, ok := llm.AsError(err); ok && e.Kind == llm.KindBadRequest {
		// A server that refuses structured output (an older or stricter
		// OpenAI-compatible one) may still answer in plain text.
		req.Format = nil
		resp, err = llm.Collect(c.Provider.Stream(ctx, req))
	}
	if err != nil {
		return "", err
	}
	return JudgeFormat.Answer(resp), nil
}
