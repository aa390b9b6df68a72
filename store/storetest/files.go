package storetest

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/llm"
)

var fileTests = []test{
	{"Images", testImages},
	{"ImagesAreTheSessions", testImagesAreTheSessions},
}

// pictures are a screenshot and a photo, hashed as the runner stores them.
func pictures() (shot, photo llm.Image) {
	shot = llm.ImageHash(llm.Image{MIME: "image/png", Data: bytes.Repeat([]byte("p"), 50_000), Width: 800, Height: 600, Name: "shot.png"})
	photo = llm.ImageHash(llm.Image{MIME: "image/jpeg", Data: bytes.Repeat([]byte("j"), 30_000), Name: "photo.jpg"})
	return shot, photo
}

// testImages: a transcript showing pictures, some more than once, reads
// back equal, also after a restart; without image data it keeps each
// picture's hash and size but no bytes; and a rewrite that drops the last
// message showing a picture keeps the others' bytes.
func testImages(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	ctx := t.Context()
	id := newSession(t, db, slackThread)
	shot, photo := pictures()
	msgs := []llm.Message{
		{Role: llm.RoleUser, Text: "look", Images: []llm.Image{shot, photo}},
		{Role: llm.RoleAssistant, Text: "I see a shot and a photo."},
		{Role: llm.RoleUser, Text: "the same again", Images: []llm.Image{shot}},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "shot"}}},
		{Role: llm.RoleTool, ToolCallID: "c1", ToolName: "shot", Text: "done", Images: []llm.Image{photo}},
	}
	if err := db.AppendMessages(ctx, id, msgs...); err != nil {
		t.Fatal(err)
	}
	for _, db := range []Store{db, reopen()} {
		got, err := db.Messages(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(msgs, got); diff != "" {
			t.Errorf("transcript with images changed in storage (-stored +loaded):\n%s", diff)
		}
	}
	light, err := db.MessagesWithoutImageData(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(light) != len(msgs) || len(light[0].Images) != 2 || len(light[4].Images) != 1 {
		t.Fatalf("without data: %+v", light)
	}
	if img := light[0].Images[0]; img.Data != nil || img.SHA256 != shot.SHA256 || img.Width != 800 || img.MIME != "image/png" {
		t.Errorf("without data: %+v, want the shot's hash and size and no bytes", img)
	}
	if img := light[4].Images[0]; img.Data != nil || img.SHA256 != photo.SHA256 {
		t.Errorf("without data: %+v, want the photo's hash and no bytes", img)
	}

	// Compaction keeps only the last exchange: the photo stays (the tool
	// result shows it), the shot is folded away.
	kept := []llm.Message{{Role: llm.RoleUser, Text: "[Summary]"}, msgs[3], msgs[4]}
	if err := db.ReplaceMessages(ctx, id, kept); err != nil {
		t.Fatal(err)
	}
	got, err := db.Messages(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(kept, got); diff != "" {
		t.Errorf("after the rewrite (-want +got):\n%s", diff)
	}
	// The shot can be shown again after its bytes went.
	again := llm.Message{Role: llm.RoleUser, Text: "once more", Images: []llm.Image{shot}}
	if err := db.AppendMessages(ctx, id, again); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Messages(ctx, id); err != nil || len(got) != 4 || !bytes.Equal(got[3].Images[0].Data, shot.Data) {
		t.Errorf("the shot shown again: %v", err)
	}
}

// testImagesAreTheSessions: the same picture in two sessions is each
// one's; rewriting one session's transcript without it leaves the other's.
func testImagesAreTheSessions(t *testing.T, s suite) {
	db := s.fresh(t)
	ctx := t.Context()
	a, b := newSession(t, db, slackThread), newSession(t, db, tgPrivate)
	shot, _ := pictures()
	msg := llm.Message{Role: llm.RoleUser, Text: "look", Images: []llm.Image{shot}}
	for _, id := range []string{a, b} {
		if err := db.AppendMessages(ctx, id, msg); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.ReplaceMessages(ctx, a, []llm.Message{{Role: llm.RoleUser, Text: "[Summary]"}}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Messages(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]llm.Message{msg}, got); diff != "" {
		t.Errorf("the other session's picture (-want +got):\n%s", diff)
	}
}
