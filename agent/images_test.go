package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/media"
	"github.com/parleybot/parley/agent/media/mediatest"
)

func prepared(t *testing.T, name string, w, h int) llm.Image {
	t.Helper()
	img, err := media.Prepare(mediatest.PNG(w, h), name, media.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestImagesReachTheModelAndStay: a person's pictures go to the model
// after the text of their message, and a follow-up turn still sends them,
// in the same place, from the stored transcript.
func TestImagesReachTheModelAndStay(t *testing.T) {
	h := newHarness(t)
	sid := h.session(t, "ana")
	first, second := prepared(t, "one.png", 40, 30), prepared(t, "two.png", 60, 20)
	h.srv.Enqueue(llmtest.Text("Two screenshots."), llmtest.Text("The second is wider."))
	tr := turn(sid, "ana", "what are these?")
	tr.Images = []llm.Image{first, second}
	if _, err := collect(t.Context(), h.runner, tr); err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t.Context(), h.runner, turn(sid, "ana", "and the second screenshot?")); err != nil {
		t.Fatal(err)
	}
	for i, req := range h.srv.Requests() {
		imgs := req.Images()
		if len(imgs) != 2 || !bytes.Equal(imgs[0].Data, first.Data) || !bytes.Equal(imgs[1].Data, second.Data) {
			t.Fatalf("request %d: images %d, want both, in order", i+1, len(imgs))
		}
		if !strings.HasSuffix(imgs[0].Before, "\n\nwhat are these?") || imgs[0].MIME != "image/png" { // after the time's preamble
			t.Errorf("request %d: image %+v, want it after the question's text", i+1, imgs[0])
		}
	}
}

// TestBlindModelGetsNotes: a model that cannot see is sent a note for
// each picture and no image part; the transcript keeps the pictures.
func TestBlindModelGetsNotes(t *testing.T) {
	h := newHarness(t)
	h.runner.Blind = true
	sid := h.session(t, "ana")
	h.srv.Enqueue(llmtest.Text("I cannot see it."))
	tr := turn(sid, "ana", "look")
	tr.Images = []llm.Image{prepared(t, "shot.png", 40, 30)}
	if _, err := collect(t.Context(), h.runner, tr); err != nil {
		t.Fatal(err)
	}
	req := h.srv.Requests()[0]
	if n := len(req.Images()); n != 0 {
		t.Fatalf("%d images sent to a blind model", n)
	}
	if text := req.LastUserText(); !strings.Contains(text, "look\n[image shot.png, 40×30: this model cannot see images") {
		t.Errorf("user text %q has no note for the picture", text)
	}
	msgs, err := h.db.Messages(t.Context(), sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs[0].Images) != 1 || len(msgs[0].Images[0].Data) == 0 {
		t.Errorf("the transcript lost the picture: %+v", msgs[0])
	}
}

// camera is a tool that returns a picture (as an MCP server's image
// content would), and one that is no picture at all.
type camera struct{ shot []byte }

func (camera) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "camera", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (t camera) Name() string { return t.Spec().Name }

func (c camera) Execute(context.Context, agent.Caller, json.RawMessage) (string, error) {
	return "unused", nil
}

func (c camera) ExecuteImages(context.Context, agent.Caller, json.RawMessage) (string, []llm.Image, error) {
	return "took a picture", []llm.Image{{MIME: "image/png", Data: c.shot}, {Name: "broken.png", Data: []byte("\x89PNG\r\n\x1a\nbroken")}}, nil
}

// TestToolImagesFollowTheResults: a tool's picture is kept with its
// result and sent in a user message right after the tool results; one
// that does not decode is named in the result instead.
func TestToolImagesFollowTheResults(t *testing.T) {
	shot := mediatest.PNG(64, 48)
	h := newHarness(t, camera{shot: shot})
	sid := h.session(t, "ana")
	h.srv.Enqueue(llmtest.ToolCall("c1", "camera", `{}`), llmtest.Text("A pattern."))
	if _, err := collect(t.Context(), h.runner, turn(sid, "ana", "take a picture")); err != nil {
		t.Fatal(err)
	}
	req := h.srv.Requests()[1]
	msgs := req.JSON["messages"].([]any)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,tool,user" {
		t.Fatalf("roles %s: want the pictures in a user message right after the tool result", got)
	}
	imgs := req.Images()
	if len(imgs) != 1 || imgs[0].Message != 4 || !bytes.Equal(imgs[0].Data, shot) {
		t.Fatalf("images %+v", imgs)
	}
	if !strings.Contains(imgs[0].Before, "camera returned") {
		t.Errorf("the lifted message says %q", imgs[0].Before)
	}
	result := req.LastText("tool")
	if !strings.HasPrefix(result, "took a picture\n[image broken.png could not be used: the image is damaged") {
		t.Errorf("tool result %q does not name the broken picture", result)
	}
	stored, err := h.db.Messages(t.Context(), sid)
	if err != nil {
		t.Fatal(err)
	}
	if tr := stored[2]; tr.Role != llm.RoleTool || len(tr.Images) != 1 {
		t.Errorf("the tool result was stored without its picture: %+v", tr)
	}
}

// TestCompactionLeavesImagePlaceholders: pictures count toward the
// estimate, so a few screenshots fill a small window; those folded into
// the summary leave a line each.
func TestCompactionLeavesImagePlaceholders(t *testing.T) {
	h := newHarness(t)
	h.runner.ContextWindow = 3000 // budget 1800; each 800×600 picture counts 640
	sid := h.session(t, "ana")
	var history []llm.Message
	for i, name := range []string{"a.png", "b.png", "c.png"} {
		history = append(history,
			llm.Message{Role: llm.RoleUser, Text: "screenshot " + string(rune('1'+i)), Images: []llm.Image{prepared(t, name, 800, 600)}},
			llm.Message{Role: llm.RoleAssistant, Text: "Noted."})
	}
	if n := agent.EstimateMessages(history); n < 3*640 {
		t.Fatalf("three screenshots estimated at %d tokens", n)
	}
	h.seed(t, sid, history...)
	h.srv.Enqueue(llmtest.Text("Ana sent three screenshots."), llmtest.Text("Yes."))
	evs, err := collect(t.Context(), h.runner, turn(sid, "ana", "still there?"))
	if err != nil {
		t.Fatal(err)
	}
	if indexKind(evs, agent.EventCompaction) < 0 {
		t.Fatalf("no compaction: %v", kinds(evs))
	}
	msgs, err := h.db.Messages(t.Context(), sid)
	if err != nil {
		t.Fatal(err)
	}
	summary := msgs[0].Text
	if !strings.Contains(summary, "[image a.png, 800×600: shared earlier; removed when the conversation was compacted]") {
		t.Errorf("the summary has no line for the folded picture:\n%s", summary)
	}
	if summaryReq := h.srv.Requests()[0]; !strings.Contains(summaryReq.LastUserText(), "[image a.png, 800×600: attached by the user]") {
		t.Errorf("the summarizer was not told of the picture:\n%s", summaryReq.LastUserText())
	}
}
