package main

// End to end, what people attach: on each platform the real adapter
// downloads the file from the platform's fake with the bot's credentials,
// the core reads it, and the model (llmtest) gets the picture as an image,
// or the file's text; a follow-up in the same conversation still sends
// the picture, read back from SQLite.

import (
	"bytes"
	"strings"
	"testing"

	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/media/mediatest"
)

// sentImages fails the test unless request i of model sent exactly want,
// byte for byte, and returns its images.
func sentImages(t *testing.T, model *llmtest.Server, i int, want ...[]byte) []llmtest.Image {
	t.Helper()
	reqs := model.Requests()
	if len(reqs) <= i {
		t.Fatalf("%d model requests, want request %d", len(reqs), i+1)
	}
	imgs := reqs[i].Images()
	if len(imgs) != len(want) {
		t.Fatalf("request %d sent %d images, want %d", i+1, len(imgs), len(want))
	}
	for j, img := range imgs {
		if img.Problem != "" || !bytes.Equal(img.Data, want[j]) {
			t.Fatalf("request %d, image %d: %d bytes (%s), not the picture sent", i+1, j+1, len(img.Data), img.Problem)
		}
	}
	return imgs
}

// tgShows reports whether the bot shows a message holding part in chat.
func tgShows(tg *telegramtest.Server, chat int64, part string) func() bool {
	return func() bool {
		for _, m := range tg.BotMessages(chat) {
			if strings.Contains(m.Visible, part) {
				return true
			}
		}
		return false
	}
}

// TestSlackScreenshotInThread: a screenshot shared with a mention reaches
// the model as an image, downloaded with the bot token; a follow-up in
// the thread, without a mention, still sends it.
func TestSlackScreenshotInThread(t *testing.T) {
	t.Parallel()
	slk, model := startSlack(t, nil)
	ctx := waitCtx(t)
	shot := mediatest.PNG(1280, 800)
	model.Enqueue(llmtest.Text("The deploy failed at step 3."), llmtest.Text("The second one is the log."))
	root, _ := slk.PostUserFiles("C1", "U1", "<@"+slk.BotUserID()+"> what went wrong?", "",
		slacktest.File{Name: "deploy.png", MIME: "image/png", Data: shot})
	answered := func(text string) func() bool {
		return func() bool {
			for _, m := range slk.Thread("C1", root) {
				if m.BotID != "" && m.Visible() == text && !m.Streaming {
					return true
				}
			}
			return false
		}
	}
	if err := slk.WaitFor(ctx, answered("The deploy failed at step 3.")); err != nil {
		t.Fatalf("no answer to the screenshot: %v; thread %+v", err, slk.Thread("C1", root))
	}
	imgs := sentImages(t, model, 0, shot)
	if !strings.HasSuffix(imgs[0].Before, "what went wrong?\n[image 1: deploy.png]") {
		t.Errorf("the model read %q before the picture", imgs[0].Before)
	}
	if d := slk.Downloads(); len(d) != 1 || !d[0].Authorized {
		t.Errorf("downloads %+v, want one with the bot token", d)
	}

	slk.PostUserMessage("C1", "U1", "and the second screenshot?", root)
	if err := slk.WaitFor(ctx, answered("The second one is the log.")); err != nil {
		t.Fatalf("no answer to the follow-up: %v", err)
	}
	sentImages(t, model, 1, shot)
	if d := slk.Downloads(); len(d) != 1 {
		t.Errorf("the follow-up downloaded the picture again: %+v", d)
	}
}

// TestTelegramPhotoWithoutCaption: a photo sent alone, with no caption,
// is a message; the follow-up still has the picture; a text document's
// content reaches the model as text.
func TestTelegramPhotoWithoutCaption(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, nil, nil)
	ctx := waitCtx(t)
	photo := mediatest.JPEG(1280, 960)
	w.model.Enqueue(llmtest.Text("A chart going up."), llmtest.Text("It peaks on the right."), llmtest.Text("Three names."))
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Photo: &telegramtest.Attachment{Data: photo}})
	w.botSays(t, ctx, tgAna, 0, "A chart going up.")
	sentImages(t, w.model, 0, photo)
	if got := w.model.Requests()[0].LastUserText(); !strings.HasSuffix(got, "\n\n[image 1: photo.jpg]") { // after the time's preamble
		t.Errorf("the model read %q", got)
	}

	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "where does it peak?"})
	w.botSays(t, ctx, tgAna, 0, "It peaks on the right.")
	sentImages(t, w.model, 1, photo)

	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "who is on this list?",
		Document: &telegramtest.Attachment{Name: "team.md", MIME: "text/markdown", Data: []byte("# Team\n\n- Ana\n- Bo\n- Cy\n")}})
	w.botSays(t, ctx, tgAna, 0, "Three names.")
	if got := w.model.Requests()[2].LastUserText(); !strings.Contains(got, "who is on this list?\n[file team.md (markdown), 24 characters]\n# Team\n\n- Ana\n- Bo\n- Cy\n[end of team.md]") {
		t.Errorf("the model read %q", got)
	}
}

// TestTelegramBadPictureIsAnswered: a picture that does not decode gets a
// visible answer saying so, and the model is not asked about nothing.
func TestTelegramBadPictureIsAnswered(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, nil, nil)
	ctx := waitCtx(t)
	jpeg := mediatest.JPEG(640, 480)
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Document: &telegramtest.Attachment{Name: "cut.jpg", MIME: "image/jpeg", Data: jpeg[:len(jpeg)/3]}})
	if err := w.tg.WaitFor(ctx, tgShows(w.tg, tgAna, "cut.jpg: I could not read this picture: the image is damaged")); err != nil {
		t.Fatalf("no answer about the damaged picture: %v; the bot shows %+v", err, w.tg.BotMessages(tgAna))
	}
	if n := len(w.model.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
}

// TestDiscordAttachmentInThread: a picture attached to a mention reaches
// the model; the thread's follow-up still sends it.
func TestDiscordAttachmentInThread(t *testing.T) {
	t.Parallel()
	w := startDiscord(t, nil, nil)
	ctx := waitCtx(t)
	shot := mediatest.PNG(900, 700)
	w.model.Enqueue(llmtest.Text("A login form."), llmtest.Text("The button is blue."))
	m := w.dc.Post(discordtest.Incoming{Channel: dcChannel, Author: dcAna, Content: "what is this page?", Mention: true,
		Attachments: []discordtest.Attachment{{Filename: "page.png", ContentType: "image/png", Data: shot}}})
	w.botSays(t, ctx, m, "A login form.")
	sentImages(t, w.model, 0, shot)
	if d := w.dc.Downloads(); len(d) != 1 || d[0].Authorization != "" {
		t.Errorf("downloads %+v, want one, without the bot token", d)
	}

	w.dc.Post(discordtest.Incoming{Channel: m, Author: dcAna, Content: "what colour is the button?"})
	w.botSays(t, ctx, m, "The button is blue.")
	sentImages(t, w.model, 1, shot)
}

// TestBinaryPhotoAfterKill9: the real binary on fake Telegram. A photo is
// answered; the process is killed with SIGKILL; the restarted process
// still sends the photo with the follow-up, read back from the database,
// and downloads nothing again.
func TestBinaryPhotoAfterKill9(t *testing.T) {
	t.Parallel()
	ctx := waitCtx(t)
	bin := binaryOnTelegram(t, ctx)
	photo := mediatest.JPEG(1280, 960)
	bin.model.Enqueue(llmtest.Text("A cat on a sofa."))
	first := bin.start()
	bin.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "what is this?", Photo: &telegramtest.Attachment{Data: photo}})
	if err := bin.tg.WaitFor(ctx, tgShows(bin.tg, tgAna, "A cat on a sofa.")); err != nil {
		t.Fatalf("no answer to the photo: %v\n%s", err, bin.logs.String())
	}
	sentImages(t, bin.model, 0, photo)
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	first.Wait()

	bin.model.Enqueue(llmtest.Text("It is asleep."))
	second := bin.start()
	t.Cleanup(func() { second.Process.Kill(); second.Wait() })
	bin.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "is it asleep?"})
	if err := bin.tg.WaitFor(ctx, tgShows(bin.tg, tgAna, "It is asleep.")); err != nil {
		t.Fatalf("no answer to the follow-up: %v\n%s", err, bin.logs.String())
	}
	reqs := bin.model.Requests()
	sentImages(t, bin.model, len(reqs)-1, photo)
	if d := bin.tg.Downloads(); len(d) != 1 {
		t.Errorf("downloads %+v, want the photo once", d)
	}
}
