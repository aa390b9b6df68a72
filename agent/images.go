package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/media"
)

// Images in a conversation (docs/attachments.md). A person's pictures
// reach the runner prepared (Turn.Images, Steered.Images) and are kept on
// their user message. A tool's pictures (ImageResults) are prepared here
// and kept on its result. Before each model call the history is turned
// into what the model is sent (forModel): tool pictures moved into a
// user message after the results, the oldest pictures past a per-request
// cap and — for a model that cannot see — every picture replaced by a
// one-line note. The transcript itself keeps them all, so a later model
// that can see, or a follow-up question, still has them.

// ImageResults is implemented by tools whose results can carry pictures
// (an MCP server's image content). The runner calls ExecuteImages instead
// of Execute; the pictures are checked and scaled like a person's
// (agent/media), kept with the result, and shown to the model in a user
// message right after the tool results, because many models take no
// images in the tool-result channel.
type ImageResults interface {
	ExecuteImages(ctx context.Context, caller Caller, args json.RawMessage) (string, []llm.Image, error)
}

const (
	// maxRequestImages bounds the pictures sent in one request, newest
	// kept: Anthropic refuses more than 100 and shrinks every one of them
	// past 20; older ones go as their placeholder.
	maxRequestImages = 20
	// maxToolImages bounds the pictures kept from one tool result.
	maxToolImages = 8
	// imageTokensMin and imageTokensMax bound one picture's estimate:
	// OpenAI charges 85 tokens for the smallest, Anthropic about
	// width×height/750, some 1,600 at the 1568-px edge media scales to.
	imageTokensMin = 85
	imageTokensMax = 1600
)

// Why an image is sent as its placeholder.
const (
	whyBlind     = "this model cannot see images, so only this note stands for it"
	whyCompacted = "shared earlier; removed when the conversation was compacted"
	whyTooMany   = "shared earlier; not sent again, too many images in this conversation"
)

// imageTokens estimates what img costs in the prompt.
func imageTokens(img llm.Image) int {
	if img.Width <= 0 || img.Height <= 0 {
		return imageTokensMax
	}
	return min(max(img.Width*img.Height/750, imageTokensMin), imageTokensMax)
}

// toolImages prepares the pictures a tool returned. Those that cannot be
// used are named in the returned note, for the result's text: the model
// must not believe it saw them.
func (r *Runner) toolImages(tool string, raw []llm.Image) ([]llm.Image, string) {
	var out []llm.Image
	var notes []string
	for i, img := range raw {
		name := img.Name
		if name == "" {
			name = fmt.Sprintf("%s image %d", tool, i+1)
		}
		if len(out) == maxToolImages {
			notes = append(notes, fmt.Sprintf("[%d more images were left out: at most %d per result]", len(raw)-i, maxToolImages))
			break
		}
		p, err := media.Prepare(img.Data, name, r.ImageLimits)
		if err != nil {
			notes = append(notes, fmt.Sprintf("[image %s could not be used: %v]", name, err))
			continue
		}
		out = append(out, p)
	}
	return out, strings.Join(notes, "\n")
}

// forModel is history as the model is sent it (see the top of this file).
func (r *Runner) forModel(history []llm.Message) []llm.Message {
	msgs := liftToolImages(history)
	if r.Blind {
		return llm.WithoutImages(msgs, len(msgs), whyBlind)
	}
	// Keep the pictures of the newest messages that hold at most
	// maxRequestImages; the message that would pass it, and every older
	// one, send theirs as placeholders.
	n := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if n += len(msgs[i].Images); n > maxRequestImages {
			return llm.WithoutImages(msgs, i+1, whyTooMany)
		}
	}
	return msgs
}

// liftToolImages moves the pictures of each run of tool results into one
// user message right after it. Anthropic would take them inside a
// tool_result, OpenAI and most other servers nowhere near one; after the
// whole run, so no tool result is separated from its call.
func liftToolImages(history []llm.Message) []llm.Message {
	lifted := false
	for _, m := range history {
		lifted = lifted || m.Role == llm.RoleTool && len(m.Images) > 0
	}
	if !lifted {
		return history
	}
	out := make([]llm.Message, 0, len(history)+1)
	var pending []llm.Image
	var from []string
	flush := func() {
		if len(pending) == 0 {
			return
		}
		text := fmt.Sprintf("[The images %s returned, shown here because tool results cannot hold images.]", strings.Join(from, ", "))
		out = append(out, llm.Message{Role: llm.RoleUser, Text: text, Images: pending})
		pending, from = nil, nil
	}
	for _, m := range history {
		if m.Role != llm.RoleTool {
			flush()
			out = append(out, m)
			continue
		}
		if len(m.Images) > 0 {
			pending = append(pending, m.Images...)
			from = append(from, m.ToolName)
			m.Images = nil
		}
		out = append(out, m)
	}
	flush()
	return out
}

// imageLines are the placeholders of every image in msgs, one a line:
// what compaction leaves of the pictures it folds into a summary.
func imageLines(msgs []llm.Message, why string) string {
	var lines []string
	for _, m := range msgs {
		for _, img := range m.Images {
			lines = append(lines, img.Placeholder(why))
		}
	}
	return strings.Join(lines, "\n")
}
