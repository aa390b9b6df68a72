//go:build sqlite_fts5

package bot_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
	"github.com/parleybot/parley/agent/media/mediatest"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/diskfree"
	"github.com/parleybot/parley/store"
)

// What people attach, through the router: a platform whose people attach
// files (kbPlatform: its downloads enforce the limits the adapters do),
// the real runner and store, llmtest as the model.

type attachWorld struct {
	model   *llmtest.Server
	slack   *kbPlatform
	runner  *agent.Runner
	router  *bot.Router
	replies *replies
	keys    int
}

func newAttachWorld(t *testing.T, lim bot.Attachments) *attachWorld {
	t.Helper()
	return newAttachWorldConfig(t, lim, nil)
}

// newAttachWorldConfig is newAttachWorld with tweak, if not nil, applied to
// the router's configuration.
func newAttachWorldConfig(t *testing.T, lim bot.Attachments, tweak func(*bot.RouterConfig)) *attachWorld {
	t.Helper()
	w := &attachWorld{model: llmtest.NewServer(), slack: newKBPlatform("slack", true),
		replies: &replies{finals: map[string][]string{}, open: map[string]int{}, streaming: make(chan string, 1)}}
	t.Cleanup(w.model.Close)
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w.runner = &agent.Runner{RunnerConfig: agent.RunnerConfig{
		Provider: openai.New(openai.Config{APIKey: "sk-test", BaseURL: w.model.OpenAIBaseURL()}),
		Sessions: db, Memory: db, Logger: slog.New(slog.DiscardHandler),
	}}
	cfg := bot.RouterConfig{
		Sessions: db, Inbox: db, KV: db, Runner: w.runner, Reply: w.replies.factory,
		Attachments: lim, Model: "openai/gpt-test", Logger: slog.New(slog.DiscardHandler),
	}
	if tweak != nil {
		tweak(&cfg)
	}
	w.router = newRouter(t, cfg, w.slack)
	return w
}

// TestLowDiskLeavesFilesUnread: below the data directory's free-space
// floor, attached files are not downloaded or kept; the person is told
// why, and the conversation goes on with the text.
func TestLowDiskLeavesFilesUnread(t *testing.T) {
	low := &diskfree.LowError{Free: 10 << 20, Min: 256 << 20}
	w := newAttachWorldConfig(t, bot.Attachments{}, func(cfg *bot.RouterConfig) {
		cfg.DiskFloor = diskfree.Floor{Path: t.TempDir(), Min: low.Min, Free: func(string) (uint64, error) { return low.Free, nil }}.Check
	})
	w.model.Enqueue(llmtest.Text("I cannot see it, but tell me more."))
	shot := mediatest.PNG(300, 200)
	file := w.slack.attach("build.png", "image/png", shot)
	w.send(t, "what is wrong here?", file)
	if imgs := w.lastRequest(t).Images(); len(imgs) != 0 {
		t.Fatalf("an image was kept below the floor")
	}
	if n := w.notices(); len(n) != 1 || !strings.Contains(n[0], "low on disk space") || !strings.Contains(n[0], "store.min_free_mb") {
		t.Fatalf("notices %q, want the reason", n)
	}
	if body := string(w.lastRequest(t).Body); !strings.Contains(body, "what is wrong here?") || !strings.Contains(body, "not read: the server is low on disk space") {
		t.Fatalf("the model was not told the text and that the file was left: %s", body)
	}
	if n := w.slack.downloaded(file.ID); n != 0 {
		t.Fatalf("%d downloads below the floor", n)
	}
}

// post is Alice's message in the DM with files attached; it returns its
// key.
func (w *attachWorld) post(t *testing.T, text string, files ...chat.File) string {
	t.Helper()
	w.keys++
	key := fmt.Sprintf("k%d", w.keys)
	m := chat.Message{Key: key, ID: key, Text: text, Direct: true, Files: files,
		Thread: chat.Thread{Platform: "slack", Space: "W", Chat: "D1"}, User: slackAlice}
	if err := w.router.HandleMessage(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	return key
}

// send is post, returning once the turn it started has ended.
func (w *attachWorld) send(t *testing.T, text string, files ...chat.File) string {
	t.Helper()
	key := w.post(t, text, files...)
	w.router.Wait()
	return key
}

// notices are the messages posted in the conversation besides replies:
// what was not read, that the model is blind.
func (w *attachWorld) notices() []string {
	sent, _ := w.slack.snapshot()
	return sent
}

// lastRequest is the model's last request, failing the test when there
// was none.
func (w *attachWorld) lastRequest(t *testing.T) llmtest.Request {
	t.Helper()
	reqs := w.model.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model was never asked")
	}
	return reqs[len(reqs)-1]
}

// TestScreenshotReachesTheModelAndStays: a screenshot attached in the
// conversation reaches the model as an image after the message's text,
// labelled there; the follow-up about it still sends it; the person is
// told nothing (nothing went wrong).
func TestScreenshotReachesTheModelAndStays(t *testing.T) {
	w := newAttachWorld(t, bot.Attachments{})
	shot := mediatest.PNG(1200, 800)
	w.model.Enqueue(llmtest.Text("The build is red."), llmtest.Text("The second one shows the log."))
	w.send(t, "what is wrong here?", w.slack.attach("build.png", "image/png", shot))
	req := w.lastRequest(t)
	imgs := req.Images()
	if len(imgs) != 1 || !bytes.Equal(imgs[0].Data, shot) {
		t.Fatalf("images %d, want the screenshot as it was sent", len(imgs))
	}
	if !strings.HasSuffix(imgs[0].Before, "\n\nwhat is wrong here?\n[image 1: build.png]") { // after the time's preamble
		t.Errorf("text before the image: %q", imgs[0].Before)
	}
	w.send(t, "and the second screenshot?")
	if imgs := w.lastRequest(t).Images(); len(imgs) != 1 || !bytes.Equal(imgs[0].Data, shot) {
		t.Fatalf("the follow-up sent %d images, want the screenshot again", len(imgs))
	}
	if n := w.notices(); len(n) != 0 {
		t.Errorf("notices %q, want none", n)
	}
}

// TestPictureSentAsFileIsAnImage: what the bytes are decides, not the
// name or the declared type; a large one is scaled down to what models
// take.
func TestPictureSentAsFileIsAnImage(t *testing.T) {
	w := newAttachWorld(t, bot.Attachments{})
	w.model.Enqueue(llmtest.Text("A pattern."))
	w.send(t, "", w.slack.attach("scan.dat", "application/octet-stream", mediatest.JPEG(3000, 2000)))
	imgs := w.lastRequest(t).Images()
	if len(imgs) != 1 || imgs[0].MIME != "image/jpeg" {
		t.Fatalf("images %+v", imgs)
	}
	if got := w.lastRequest(t).LastUserText(); !strings.HasSuffix(got, "\n\n[image 1: scan.dat]") {
		t.Errorf("user text %q", got)
	}
}

// TestTextFilesBecomeText: a text file's content and a PDF's text reach
// the model as text of the turn, in the order attached.
func TestTextFilesBecomeText(t *testing.T) {
	pdf, err := os.ReadFile("testdata/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	w := newAttachWorld(t, bot.Attachments{})
	w.model.Enqueue(llmtest.Text("Summarized."))
	w.send(t, "summarize these",
		w.slack.attach("notes.csv", "text/csv", []byte("name,score\nana,3\nbo,5\n")),
		w.slack.attach("report.pdf", "application/pdf", pdf))
	got := w.lastRequest(t).LastUserText()
	for _, want := range []string{
		"summarize these\n[file notes.csv (text), 22 characters]\nname,score\nana,3\nbo,5\n[end of notes.csv]",
		"[file report.pdf (pdf),", "Revenue grew 12 percent in the third quarter.", "Churn fell to 2 percent.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the model's text lacks %q:\n%s", want, got)
		}
	}
	if strings.Index(got, "notes.csv") > strings.Index(got, "report.pdf") {
		t.Error("the files are out of order")
	}
}

// TestLongFileIsCutAndSaid: past FileChars the rest is cut, and both the
// model and the person are told how much.
func TestLongFileIsCutAndSaid(t *testing.T) {
	w := newAttachWorld(t, bot.Attachments{FileChars: 100})
	w.model.Enqueue(llmtest.Text("ok"))
	w.send(t, "read", w.slack.attach("log.txt", "text/plain", []byte(strings.Repeat("0123456789", 25))))
	got := w.lastRequest(t).LastUserText()
	if !strings.Contains(got, strings.Repeat("0123456789", 10)+"\n[… log.txt continues for 150 more characters, not read: at most 100 are read of one file]") ||
		strings.Contains(got, strings.Repeat("0123456789", 11)) {
		t.Errorf("the model read:\n%s", got)
	}
	if n := w.notices(); len(n) != 1 || !strings.Contains(n[0], "log.txt is long: I read its first 100 of 250 characters.") {
		t.Errorf("notices %q", n)
	}
}

// TestBadAttachmentsAreAnswered: each kind of bad file gets its line in
// one visible answer, the model is told which files it is not shown, and
// the turn goes on with what could be read.
func TestBadAttachmentsAreAnswered(t *testing.T) {
	w := newAttachWorld(t, bot.Attachments{MaxFiles: 6, MaxBytes: 1 << 20})
	good := mediatest.PNG(64, 48)
	png := mediatest.PNG(300, 200)
	files := []chat.File{
		w.slack.attach("huge.png", "image/png", make([]byte, 2<<20)),                                                   // oversized
		w.slack.attach("cut.png", "image/png", png[:len(png)/2]),                                                       // corrupt
		w.slack.attach("IMG_0042.HEIC", "image/heic", append([]byte("\x00\x00\x00\x18ftypheic"), make([]byte, 64)...)), // unsupported picture
		w.slack.attach("bundle.zip", "application/zip", []byte("PK\x03\x04\x14\x00\x00\x00binary\x00\x01")),            // unsupported file
		{ID: "F-gone", Name: "gone.png", MIME: "image/png", Size: 100},                                                 // the download fails
		w.slack.attach("ok.png", "image/png", good),
		w.slack.attach("seventh.txt", "text/plain", []byte("too many")), // past MaxFiles
	}
	w.model.Enqueue(llmtest.Text("I can see one picture."))
	w.send(t, "look at all of these", files...)

	n := w.notices()
	if len(n) != 1 {
		t.Fatalf("notices %q, want one answer naming every problem", n)
	}
	for _, want := range []string{
		"I could not read everything you attached:",
		"huge.png: not read, it is larger than the 1.0 MiB I download.",
		"cut.png: I could not read this picture: the image is damaged",
		"IMG_0042.HEIC: I could not read this picture: unsupported image format: HEIC photos cannot be read",
		"bundle.zip: I cannot read this kind of file (application/zip). I read pictures",
		"gone.png: not read, the download failed.",
		"You attached 7 files; I read the first 6.",
	} {
		if !strings.Contains(n[0], want) {
			t.Errorf("the answer lacks %q:\n%s", want, n[0])
		}
	}
	req := w.lastRequest(t)
	if imgs := req.Images(); len(imgs) != 1 || !bytes.Equal(imgs[0].Data, good) {
		t.Fatalf("images %d, want ok.png alone", len(imgs))
	}
	text := req.LastUserText()
	for _, want := range []string{
		"[file huge.png was attached but not read:", "[image cut.png was attached but could not be read:",
		"[image IMG_0042.HEIC was attached but could not be read:", "[file bundle.zip was attached but could not be read: its type, application/zip, is not one I read]",
		"[file gone.png was attached but not read: the download failed]", "[image 1: ok.png]",
		"[1 more files were attached but not read: at most 6 per message]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the model was not told %q:\n%s", want, text)
		}
	}
	if w.slack.downloaded("F-gone") != 1 {
		t.Error("the failing download was not tried")
	}
	if got := w.replies.final("k1"); len(got) != 1 || got[0] != "I can see one picture." {
		t.Errorf("the turn's answer: %q", got)
	}
}

// TestOnlyUnreadableAttachmentsAskNothing: a message that is nothing but
// a file that cannot be read is answered with why, without a model call.
func TestOnlyUnreadableAttachmentsAskNothing(t *testing.T) {
	w := newAttachWorld(t, bot.Attachments{})
	png := mediatest.PNG(300, 200)
	key := w.send(t, "", w.slack.attach("cut.png", "image/png", png[:100]))
	if n := len(w.model.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times about nothing", n)
	}
	if n := w.notices(); len(n) != 1 || !strings.Contains(n[0], "cut.png: I could not read this picture") {
		t.Errorf("notices %q", n)
	}
	if got := w.replies.final(key); len(got) != 0 {
		t.Errorf("a reply was opened: %q", got)
	}
}

// TestSoundAndMotionAreAnsweredUnread: a voice note, an audio file or a
// video (by declared type) is not downloaded; the person is told Parley
// cannot listen or watch, and a message that is nothing else asks the
// model nothing.
func TestSoundAndMotionAreAnsweredUnread(t *testing.T) {
	w := newAttachWorld(t, bot.Attachments{})
	voice := w.slack.attach("voice message", "audio/ogg", []byte("OggS\x00\x02 a voice"))
	video := w.slack.attach("demo.mp4", "Video/MP4", []byte("\x00\x00\x00\x18ftypmp42 a video"))
	key := w.send(t, "", voice, video)
	if n := len(w.model.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times about a voice note", n)
	}
	n := w.notices()
	if len(n) != 1 {
		t.Fatalf("notices %q, want one answer", n)
	}
	for _, want := range []string{
		"voice message: I cannot listen to audio or watch video. Send what it says as text",
		"demo.mp4: I cannot listen to audio or watch video.",
	} {
		if !strings.Contains(n[0], want) {
			t.Errorf("the answer lacks %q:\n%s", want, n[0])
		}
	}
	if w.slack.downloaded(voice.ID) != 0 || w.slack.downloaded(video.ID) != 0 {
		t.Error("audio or video was downloaded")
	}
	if got := w.replies.final(key); len(got) != 0 {
		t.Errorf("a reply was opened: %q", got)
	}

	// With words, the turn goes on and the model is told what it missed.
	w.model.Enqueue(llmtest.Text("ok"))
	w.send(t, "what do you make of this?", w.slack.attach("call.m4a", "audio/mp4", []byte("audio")))
	if got := w.lastRequest(t).LastUserText(); !strings.Contains(got, "[file call.m4a was attached but not read: audio is not read]") {
		t.Errorf("the model read:\n%s", got)
	}
}

// TestBlindModelToldOnce: with a model that cannot see, the person is
// told so once, whatever number of pictures follow; the model gets a note
// for each picture and no image.
func TestBlindModelToldOnce(t *testing.T) {
	w := newAttachWorld(t, bot.Attachments{})
	w.runner.Blind = true
	w.model.Enqueue(llmtest.Text("I cannot see it."), llmtest.Text("Still cannot."))
	w.send(t, "look", w.slack.attach("a.png", "image/png", mediatest.PNG(40, 30)))
	w.send(t, "and this", w.slack.attach("b.png", "image/png", mediatest.PNG(40, 30)))
	n := w.notices()
	if len(n) != 1 || !strings.Contains(n[0], "openai/gpt-test cannot see images") {
		t.Fatalf("notices %q, want one saying the model cannot see", n)
	}
	req := w.lastRequest(t)
	if imgs := req.Images(); len(imgs) != 0 {
		t.Fatalf("%d images went to a blind model", len(imgs))
	}
	if text := req.LastUserText(); !strings.Contains(text, "and this\n[image 1: b.png]\n[image b.png, 40×30: this model cannot see images") {
		t.Errorf("the model read %q", text)
	}
}

// TestPictureSteersARunningTurn: a picture sent while the turn runs a
// tool joins the turn's next model call, as its author's words do.
func TestPictureSteersARunningTurn(t *testing.T) {
	w := newAttachWorld(t, bot.Attachments{})
	gate := &gateTool{entered: make(chan struct{}), release: make(chan struct{})}
	w.runner.Tools = []agent.Tool{gate}
	shot := mediatest.PNG(320, 200)
	w.model.Enqueue(llmtest.ToolCall("b1", "build", `{}`), llmtest.Text("Built; the screenshot shows the warning."))
	w.post(t, "build it")
	<-gate.entered
	w.post(t, "this warning too", w.slack.attach("warning.png", "image/png", shot))
	close(gate.release)
	w.router.Wait()
	imgs := w.lastRequest(t).Images()
	if len(imgs) != 1 || !bytes.Equal(imgs[0].Data, shot) || !strings.HasSuffix(imgs[0].Before, "this warning too\n[image 1: warning.png]") {
		t.Fatalf("the running turn's next call got images %+v", imgs)
	}
}

// TestTextInAnotherEncodingIsExplained: a text file that is not UTF-8 is
// refused with the extractor's advice, not as a binary type.
func TestTextInAnotherEncodingIsExplained(t *testing.T) {
	w := newAttachWorld(t, bot.Attachments{})
	latin1 := bytes.Repeat([]byte("caf\xe9 cr\xe8me br\xfbl\xe9e\n"), 20)
	w.send(t, "", w.slack.attach("menu.txt", "text/plain", latin1))
	if n := w.notices(); len(n) != 1 || !strings.Contains(n[0], "menu.txt: I could not read it:") || !strings.Contains(n[0], "UTF-8") {
		t.Errorf("notices %q", n)
	}
}
