package main

// End to end, voice notes and audio (#31 §1): on each platform the real
// adapter downloads the recording from the platform's fake, the core
// sends it to llmtest's /v1/audio/transcriptions (transcription.model
// openai/whisper-1, on the provider the chat model uses), and the model
// reads the transcript as the person's words; the person sees what was
// heard.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// whisper turns transcription on, on the model's server.
var whisper = map[string]string{"PARLEY_TRANSCRIPTION_MODEL": "openai/whisper-1"}

var voiceNote = []byte("OggS\x00\x02\x00\x00 an opus voice note")

// TestTelegramVoiceNoteTranscribed: a voice note alone reaches the model
// as the person's words, marked as transcribed; the person is shown what
// was heard before the answer; the audio is not kept.
func TestTelegramVoiceNoteTranscribed(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, whisper, nil)
	ctx := waitCtx(t)
	w.model.EnqueueTranscriptions(llmtest.Heard{Text: "Remind me to buy milk on the way home.", Seconds: 42})
	w.model.Enqueue(llmtest.Text("I will."))
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Voice: &telegramtest.Attachment{Data: voiceNote}, Duration: 42})
	w.botSays(t, ctx, tgAna, 0, "I will.")
	if err := w.tg.WaitFor(ctx, tgShows(w.tg, tgAna, "🎙 heard: Remind me to buy milk on the way home.")); err != nil {
		t.Fatalf("no heard line: %v; the bot shows %+v", err, w.tg.BotMessages(tgAna))
	}
	var order []string
	for _, m := range w.tg.BotMessages(tgAna) {
		order = append(order, m.Visible)
	}
	if len(order) != 2 || !strings.HasPrefix(order[0], "🎙 heard:") {
		t.Errorf("the bot shows %q, want the heard line, then the answer", order)
	}
	if got := w.model.Requests()[0].LastUserText(); !strings.HasSuffix(got, "\n\n[voice message, 0:42, transcribed]\nRemind me to buy milk on the way home.") {
		t.Errorf("the model read %q", got)
	}
	stt := w.model.Transcriptions()
	if len(stt) != 1 || stt[0].Model != "whisper-1" || !bytes.Equal(stt[0].Data, voiceNote) || stt[0].ContentType != "audio/ogg" {
		t.Fatalf("transcription requests %+v", stt)
	}
	if _, err := os.Stat(filepath.Join(w.cfg.DataDir, "audio")); !os.IsNotExist(err) {
		t.Errorf("audio was kept without transcription.keep: %v", err)
	}
}

// TestTelegramLongVoiceNoteRefused: a note longer than
// transcription.max_minutes gets the limit answer; it is not downloaded,
// not transcribed, and the model is not asked.
func TestTelegramLongVoiceNoteRefused(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, whisper, nil)
	ctx := waitCtx(t)
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Voice: &telegramtest.Attachment{Data: voiceNote}, Duration: 11*60 + 5})
	if err := w.tg.WaitFor(ctx, tgShows(w.tg, tgAna, "voice message is 12 minutes long; I transcribe at most 10.")); err != nil {
		t.Fatalf("no limit answer: %v; the bot shows %+v", err, w.tg.BotMessages(tgAna))
	}
	if n, s, d := len(w.model.Requests()), len(w.model.Transcriptions()), len(w.tg.Downloads()); n+s+d != 0 {
		t.Errorf("%d model calls, %d transcriptions, %d downloads; want none", n, s, d)
	}
}

// TestTelegramVoiceWithoutTranscription: off (the default), a voice note
// keeps today's answer and nothing is downloaded.
func TestTelegramVoiceWithoutTranscription(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, nil, nil)
	ctx := waitCtx(t)
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Voice: &telegramtest.Attachment{Data: voiceNote}, Duration: 5})
	if err := w.tg.WaitFor(ctx, tgShows(w.tg, tgAna, "voice message: I cannot listen to audio or watch video.")); err != nil {
		t.Fatalf("no answer: %v; the bot shows %+v", err, w.tg.BotMessages(tgAna))
	}
	if n, d := len(w.model.Requests()), len(w.tg.Downloads()); n+d != 0 {
		t.Errorf("%d model calls, %d downloads; want none", n, d)
	}
}

// TestTelegramAudioKept: with transcription.keep the audio file is kept
// under the data directory, readable by its owner alone.
func TestTelegramAudioKept(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, map[string]string{"PARLEY_TRANSCRIPTION_MODEL": "openai/whisper-1", "PARLEY_TRANSCRIPTION_KEEP": "true"}, nil)
	ctx := waitCtx(t)
	song := []byte("ID3\x04 an mp3")
	w.model.EnqueueTranscriptions(llmtest.Heard{Text: "Standup notes.", Seconds: 65})
	w.model.Enqueue(llmtest.Text("Noted."))
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "summarize", Audio: &telegramtest.Attachment{Name: "standup.mp3", MIME: "audio/mpeg", Data: song}, Duration: 65})
	w.botSays(t, ctx, tgAna, 0, "Noted.")
	if got := w.model.Requests()[0].LastUserText(); !strings.HasSuffix(got, "summarize\n[audio standup.mp3, 1:05, transcribed]\nStandup notes.") {
		t.Errorf("the model read %q", got)
	}
	kept, _ := filepath.Glob(filepath.Join(w.cfg.DataDir, "audio", "*", "*.mp3"))
	if len(kept) != 1 {
		t.Fatalf("kept %v, want one mp3", kept)
	}
	fi, err := os.Stat(kept[0])
	if b, _ := os.ReadFile(kept[0]); err != nil || fi.Mode().Perm() != 0o600 || !bytes.Equal(b, song) {
		t.Errorf("kept %s: mode %v, %v; want the audio, 0600", kept[0], fi.Mode(), err)
	}
}

// TestSlackAudioFileTranscribed: an audio clip recorded in Slack, which
// Slack labels by its container (video/mp4), shared with a mention,
// reaches the model as the transcript, downloaded with the bot token.
func TestSlackAudioFileTranscribed(t *testing.T) {
	t.Parallel()
	slk, model := startSlack(t, whisper)
	ctx := waitCtx(t)
	clip := []byte("\x1aE\xdf\xa3 a webm clip")
	model.EnqueueTranscriptions(llmtest.Heard{Text: "The deploy is stuck at step three.", Seconds: 9.6})
	model.Enqueue(llmtest.Text("Let me look."))
	root, _ := slk.PostUserFiles("C1", "U1", "<@"+slk.BotUserID()+">", "",
		slacktest.File{Name: "audio_message.mp4", MIME: "video/mp4", Data: clip, DurationMs: 9600})
	answered := func(text string) func() bool {
		return func() bool {
			for _, m := range slk.Thread("C1", root) {
				if m.BotID != "" && strings.Contains(m.Visible(), text) && !m.Streaming {
					return true
				}
			}
			return false
		}
	}
	if err := slk.WaitFor(ctx, answered("Let me look.")); err != nil {
		t.Fatalf("no answer to the clip: %v; thread %+v", err, slk.Thread("C1", root))
	}
	if err := slk.WaitFor(ctx, answered("🎙 heard: The deploy is stuck at step three.")); err != nil {
		t.Fatalf("no heard line: %v; thread %+v", err, slk.Thread("C1", root))
	}
	if got := model.Requests()[0].LastUserText(); !strings.HasSuffix(got, "[audio audio_message.mp4, 0:10, transcribed]\nThe deploy is stuck at step three.") {
		t.Errorf("the model read %q", got)
	}
	if d := slk.Downloads(); len(d) != 1 || !d[0].Authorized {
		t.Errorf("downloads %+v, want one with the bot token", d)
	}
	if stt := model.Transcriptions(); len(stt) != 1 || !bytes.Equal(stt[0].Data, clip) || stt[0].FileName != "audio_message.mp4" || stt[0].ContentType != "audio/mp4" {
		t.Errorf("transcription requests %+v", stt)
	}
}

// TestDiscordVoiceMessageTranscribed: a voice message (an audio/ogg
// attachment with duration_secs) in a mention's thread is transcribed.
func TestDiscordVoiceMessageTranscribed(t *testing.T) {
	t.Parallel()
	w := startDiscord(t, whisper, nil)
	ctx := waitCtx(t)
	w.model.EnqueueTranscriptions(llmtest.Heard{Text: "What time is the demo?", Seconds: 3})
	w.model.Enqueue(llmtest.Text("At three."))
	m := w.dc.Post(discordtest.Incoming{Channel: dcChannel, Author: dcAna, Mention: true,
		Attachments: []discordtest.Attachment{{Filename: "voice-message.ogg", ContentType: "audio/ogg", Data: voiceNote, DurationSecs: 3.2}}})
	w.botSays(t, ctx, m, "At three.")
	if got := w.model.Requests()[0].LastUserText(); !strings.HasSuffix(got, "[audio voice-message.ogg, 0:03, transcribed]\nWhat time is the demo?") {
		t.Errorf("the model read %q", got)
	}
}

// TestTranscriptionCosted: a minute transcribed at the provider's
// per_minute price is counted for its author, as the agent
// "transcription", in /usage.
func TestTranscriptionCosted(t *testing.T) {
	t.Parallel()
	slk := newWorkspace(t)
	slk.AddUser("UADM", "root")
	model := llmtest.NewServer()
	t.Cleanup(model.Close)
	env := slackEnv(slk)
	env["PARLEY_ACCESS_ADMINS"] = "slack:UADM"
	env["PARLEY_PROVIDERS"] = fmt.Sprintf(`{"local": {"kind": "openai", "base_url": %q,
		"prices": {"whisper-large-v3": {"per_minute": 0.006}}}}`, model.OpenAIBaseURL())
	env["PARLEY_TRANSCRIPTION_MODEL"] = "local/whisper-large-v3"
	startInstance(t, platformConfig(t, filepath.Join(t.TempDir(), "data"), model, env))
	ctx := waitCtx(t)

	model.EnqueueTranscriptions(llmtest.Heard{Text: "Plan the release.", Seconds: 60})
	model.Enqueue(llmtest.Text("Planned."))
	root, _ := slk.PostUserFiles("C1", "U1", "<@"+slk.BotUserID()+">", "",
		slacktest.File{Name: "audio_message.webm", MIME: "audio/webm", Data: []byte("\x1aE\xdf\xa3 a clip"), DurationMs: 60_000})
	threadAnswered(t, ctx, slk, "C1", root, "Planned.")
	usage := shownPrivately(t, ctx, slk, "C1", "UADM", "<@"+slk.BotUserID()+"> !usage", root)
	for _, line := range []string{"• transcription: $0.0060 / $0.0060 / $0.0060", "• slack:U1: $0.0060"} {
		if !strings.Contains(usage, line) {
			t.Errorf("/usage lacks %q:\n%s", line, usage)
		}
	}
}

// TestBinaryVoiceNote: the real binary, configured by the environment
// alone, transcribes a voice note and answers it.
func TestBinaryVoiceNote(t *testing.T) {
	t.Parallel()
	ctx := waitCtx(t)
	bin := binaryOnTelegram(t, ctx, "PARLEY_TRANSCRIPTION_MODEL=openai/whisper-1", "PARLEY_TRANSCRIPTION_MAX_MINUTES=2")
	bin.model.EnqueueTranscriptions(llmtest.Heard{Text: "Is the build green?", Seconds: 7})
	bin.model.Enqueue(llmtest.Text("It is green."))
	cmd := bin.start()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	bin.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Voice: &telegramtest.Attachment{Data: voiceNote}, Duration: 7})
	if err := bin.tg.WaitFor(ctx, tgShows(bin.tg, tgAna, "It is green.")); err != nil {
		t.Fatalf("no answer to the voice note: %v\n%s", err, bin.logs.String())
	}
	if got := bin.model.Requests()[0].LastUserText(); !strings.HasSuffix(got, "[voice message, 0:07, transcribed]\nIs the build green?") {
		t.Errorf("the model read %q", got)
	}
	bin.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Voice: &telegramtest.Attachment{Data: voiceNote}, Duration: 150})
	if err := bin.tg.WaitFor(ctx, tgShows(bin.tg, tgAna, "voice message is 3 minutes long; I transcribe at most 2.")); err != nil {
		t.Fatalf("no limit answer: %v\n%s", err, bin.logs.String())
	}
	if n := len(bin.model.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1", n)
	}
}
