//go:build sqlite_fts5

package bot_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/transcribe"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
)

// Voice notes and audio, through the router: the attachWorld's platform
// and model, and a second llmtest server as the transcription endpoint.

var oggNote = []byte("OggS\x00\x02 a voice note")

type voiceWorld struct {
	*attachWorld
	stt   *llmtest.Server // the transcription endpoint
	costs bot.CostBook
	// slept are the waits before retries, which return at once.
	slept []time.Duration
}

// newVoiceWorld transcribes with openai/whisper-1 at $0.006 a minute,
// its costs kept; tweak, if not nil, changes the limits.
func newVoiceWorld(t *testing.T, tweak func(*bot.Attachments)) *voiceWorld {
	t.Helper()
	v := &voiceWorld{stt: llmtest.NewServer()}
	t.Cleanup(v.stt.Close)
	lim := bot.Attachments{Audio: bot.Transcription{
		Transcriber: transcribe.New(transcribe.Config{BaseURL: v.stt.OpenAIBaseURL(), APIKey: "sk-stt"}),
		Model:       "openai/whisper-1", Price: llm.Price{PerMinute: 0.006}, Priced: true,
		Sleep: func(_ context.Context, d time.Duration) error { v.slept = append(v.slept, d); return nil },
	}}
	if tweak != nil {
		tweak(&lim)
	}
	v.attachWorld = newAttachWorldConfig(t, lim, func(cfg *bot.RouterConfig) {
		v.costs = cfg.Sessions.(bot.CostBook)
		cfg.Costs = v.costs
	})
	return v
}

// voice attaches a voice note of d (0: the platform does not say).
func (v *voiceWorld) voice(d time.Duration) chat.File {
	f := v.slack.attach("voice message", "audio/ogg", oggNote)
	f.Duration = d
	return f
}

// TestVoiceNoteReachesTheModelAsWords: a voice note alone is transcribed;
// the model reads the transcript as the person's message, marked; the
// person is shown what was heard; the minute is counted for them.
func TestVoiceNoteReachesTheModelAsWords(t *testing.T) {
	w := newVoiceWorld(t, nil)
	w.stt.EnqueueTranscriptions(llmtest.Heard{Text: "Remind me to buy milk.", Seconds: 42})
	w.model.Enqueue(llmtest.Text("Sure."))
	note := w.voice(42 * time.Second)
	w.send(t, "", note)

	if got := w.lastRequest(t).LastUserText(); !strings.HasSuffix(got, "\n\n[voice message, 0:42, transcribed]\nRemind me to buy milk.") {
		t.Errorf("the model read %q", got)
	}
	reqs := w.stt.Transcriptions()
	if len(reqs) != 1 || reqs[0].Model != "whisper-1" || !bytes.Equal(reqs[0].Data, oggNote) || reqs[0].FileName != "voice message.ogg" {
		t.Fatalf("transcription requests %+v", reqs)
	}
	if n := w.notices(); len(n) != 1 || n[0] != "D1|🎙 heard: Remind me to buy milk." {
		t.Errorf("notices %q, want the heard line", n)
	}
	sum, err := w.costs.SumCosts(t.Context(), bot.CostFilter{User: slackAlice.Key(), Agent: bot.TranscriptionAgent})
	if err != nil || sum.Calls != 1 || sum.Nanos != 4_200_000 || sum.Unpriced != 0 {
		t.Errorf("transcription costs %+v, %v; want one call of 42 s at $0.006/min", sum, err)
	}
}

// TestLongNoteRefusedUnread: a note the platform says is longer than the
// limit is neither downloaded nor transcribed; the person is told, and
// the model is not asked about nothing.
func TestLongNoteRefusedUnread(t *testing.T) {
	w := newVoiceWorld(t, func(a *bot.Attachments) { a.Audio.MaxDuration = 10 * time.Minute })
	note := w.voice(11*time.Minute + 30*time.Second)
	w.send(t, "", note)
	if n := len(w.model.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
	if n := len(w.stt.Transcriptions()); n != 0 || w.slack.downloaded(note.ID) != 0 {
		t.Errorf("%d transcriptions, %d downloads of a note past the limit", n, w.slack.downloaded(note.ID))
	}
	if n := w.notices(); len(n) != 1 || !strings.Contains(n[0], "voice message is 12 minutes long; I transcribe at most 10.") {
		t.Errorf("notices %q", n)
	}
}

// TestLongNoteFoundByTheEndpoint: where the platform does not say the
// length, the endpoint's is checked: past the limit the transcript is not
// used, though it is paid for.
func TestLongNoteFoundByTheEndpoint(t *testing.T) {
	w := newVoiceWorld(t, func(a *bot.Attachments) { a.Audio.MaxDuration = 2 * time.Minute })
	w.stt.EnqueueTranscriptions(llmtest.Heard{Text: "A long story.", Seconds: 150})
	w.send(t, "", w.voice(0))
	if n := len(w.model.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
	if n := w.notices(); len(n) != 1 || !strings.Contains(n[0], "is 3 minutes long; I transcribe at most 2") || strings.Contains(n[0], "A long story") {
		t.Errorf("notices %q", n)
	}
	if sum, _ := w.costs.SumCosts(t.Context(), bot.CostFilter{Agent: bot.TranscriptionAgent}); sum.Nanos != 15_000_000 {
		t.Errorf("costs %+v, want 150 s at $0.006/min", sum)
	}
}

// TestTranscriptionFailures: what goes wrong is said; with words beside
// the note the turn goes on and the model is told.
func TestTranscriptionFailures(t *testing.T) {
	for _, tt := range []struct {
		name  string
		heard llmtest.Heard
		tell  string
	}{
		{"server error twice", llmtest.Heard{Status: 500}, "voice message: the transcription service is unavailable right now"},
		{"rate limited", llmtest.Heard{Status: 429, Header: http.Header{"Retry-After": {"30"}}}, "the transcription service is unavailable right now"},
		{"too large", llmtest.Heard{Status: 413}, "larger than the transcription service accepts"},
		{"malformed answer", llmtest.Heard{Body: `{"text": `}, "voice message: I could not transcribe it: transcribe: the answer is not the JSON of a transcript"},
		{"nothing heard", llmtest.Heard{Text: " "}, "voice message: I heard no words in it."},
		{"not audio", llmtest.Heard{Status: 400}, "voice message: I could not transcribe it"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newVoiceWorld(t, nil)
			w.stt.EnqueueTranscriptions(tt.heard, tt.heard)
			w.send(t, "", w.voice(5*time.Second))
			if n := len(w.model.Requests()); n != 0 {
				t.Errorf("the model was asked %d times", n)
			}
			if n := w.notices(); len(n) != 1 || !strings.Contains(n[0], tt.tell) {
				t.Errorf("notices %q, want %q", n, tt.tell)
			}
		})
	}
	t.Run("with words", func(t *testing.T) {
		w := newVoiceWorld(t, nil)
		w.stt.EnqueueTranscriptions(llmtest.Heard{Status: 503}, llmtest.Heard{Status: 503})
		w.model.Enqueue(llmtest.Text("ok"))
		w.send(t, "listen to this", w.voice(5*time.Second))
		if got := w.lastRequest(t).LastUserText(); !strings.Contains(got, "listen to this\n[voice message was attached but not transcribed: the transcription service is unavailable]") {
			t.Errorf("the model read %q", got)
		}
	})
}

// TestOversizedRecordingNotDownloaded: the file size cap holds for
// recordings as for any file.
func TestOversizedRecordingNotDownloaded(t *testing.T) {
	w := newVoiceWorld(t, func(a *bot.Attachments) { a.MaxBytes = 1024 })
	big := w.slack.attach("standup.mp3", "audio/mpeg", bytes.Repeat([]byte{0xff}, 2048))
	w.send(t, "", big)
	if n := w.notices(); len(n) != 1 || !strings.Contains(n[0], "standup.mp3: not transcribed, it is larger than the") {
		t.Errorf("notices %q", n)
	}
	if n := len(w.stt.Transcriptions()); n != 0 || w.slack.downloaded(big.ID) != 0 {
		t.Errorf("%d transcriptions, %d downloads", n, w.slack.downloaded(big.ID))
	}
}

// TestVideoStillUnread: with transcription on, a video keeps its answer
// and is not downloaded; an audio file beside it is transcribed, and a
// long transcript is shown shortened, whole to the model.
func TestVideoStillUnread(t *testing.T) {
	w := newVoiceWorld(t, nil)
	long := strings.Repeat("word ", 200)
	w.stt.EnqueueTranscriptions(llmtest.Heard{Text: long, Seconds: 61})
	w.model.Enqueue(llmtest.Text("ok"))
	video := w.slack.attach("demo.mp4", "video/mp4", []byte("\x00\x00\x00\x18ftypmp42 a video"))
	song := w.slack.attach("standup.m4a", "audio/mp4", []byte("audio"))
	w.send(t, "", video, song)
	if w.slack.downloaded(video.ID) != 0 {
		t.Error("the video was downloaded")
	}
	got := w.lastRequest(t).LastUserText()
	if !strings.Contains(got, "[file demo.mp4 was attached but not read: video is not read]") ||
		!strings.Contains(got, "[audio standup.m4a, 1:01, transcribed]\n"+strings.TrimSpace(long)) {
		t.Errorf("the model read %q", got)
	}
	n := w.notices()
	if len(n) != 2 {
		t.Fatalf("notices %q, want the heard line and the video's answer", n)
	}
	heard := n[0]
	if !strings.HasPrefix(heard, "D1|🎙 heard: word word") || !strings.HasSuffix(heard, "…") || len([]rune(heard)) > 300 {
		t.Errorf("heard line %q, want it shortened", heard)
	}
	if !strings.Contains(n[1], "demo.mp4: I cannot listen to audio or watch video.") {
		t.Errorf("the video's answer %q", n[1])
	}
}

// TestTranscriptionCountedForItsAuthor: Bo's voice note in the same
// conversation is his turn's: transcribed and counted for him, not for
// Alice, whose turn it does not touch.
func TestTranscriptionCountedForItsAuthor(t *testing.T) {
	w := newVoiceWorld(t, nil)
	w.stt.EnqueueTranscriptions(llmtest.Heard{Text: "Hello from Bo.", Seconds: 30})
	w.model.Enqueue(llmtest.Text("Hi Bo."))
	w.keys++
	bo := chat.User{Platform: "slack", ID: "bo", Name: "Bo"}
	m := chat.Message{Key: "bo1", ID: "bo1", Direct: true, Files: []chat.File{w.voice(30 * time.Second)},
		Thread: chat.Thread{Platform: "slack", Space: "W", Chat: "D2"}, User: bo}
	if err := w.router.HandleMessage(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	w.router.Wait()
	for user, want := range map[string]int{bo.Key(): 1, slackAlice.Key(): 0} {
		sum, err := w.costs.SumCosts(t.Context(), bot.CostFilter{User: user, Agent: bot.TranscriptionAgent})
		if err != nil || sum.Calls != want {
			t.Errorf("%s: %d transcriptions counted (%v), want %d", user, sum.Calls, err, want)
		}
	}
}

// TestLongTranscriptCut: a transcript is cut where a file's text would
// be (attachments.file_chars), and the cut is said.
func TestLongTranscriptCut(t *testing.T) {
	w := newVoiceWorld(t, func(a *bot.Attachments) { a.FileChars = 1000 })
	w.stt.EnqueueTranscriptions(llmtest.Heard{Text: strings.Repeat("abcd ", 300), Seconds: 60})
	w.model.Enqueue(llmtest.Text("ok"))
	w.send(t, "", w.voice(60*time.Second))
	got := w.lastRequest(t).LastUserText()
	if !strings.Contains(got, "[… the transcript continues for 499 more characters, not read: at most 1000 are read of one file]") {
		t.Errorf("the model read %q", got)
	}
	if n := w.notices(); len(n) != 2 || !strings.Contains(n[1], "voice message is long: I read the first 1000 of the 1499 characters I heard.") {
		t.Errorf("notices %q", n)
	}
}

// TestTranscriptionRetriedOnce: a transient failure with a short wait is
// tried once more after it (on the injected clock); a long wait is not
// waited.
func TestTranscriptionRetriedOnce(t *testing.T) {
	w := newVoiceWorld(t, nil)
	w.stt.EnqueueTranscriptions(llmtest.Heard{Status: 429, Header: http.Header{"Retry-After": {"2"}}}, llmtest.Heard{Text: "Second time lucky.", Seconds: 4})
	w.model.Enqueue(llmtest.Text("ok"))
	w.send(t, "", w.voice(4*time.Second))
	if got := w.lastRequest(t).LastUserText(); !strings.HasSuffix(got, "[voice message, 0:04, transcribed]\nSecond time lucky.") {
		t.Errorf("the model read %q", got)
	}
	if len(w.slept) != 1 || w.slept[0] != 2*time.Second || len(w.stt.Transcriptions()) != 2 {
		t.Errorf("slept %v, %d requests; want 2s between two", w.slept, len(w.stt.Transcriptions()))
	}

	w.stt.EnqueueTranscriptions(llmtest.Heard{Status: 429, Header: http.Header{"Retry-After": {"60"}}})
	w.send(t, "", w.voice(4*time.Second))
	if len(w.slept) != 1 || len(w.stt.Transcriptions()) != 3 {
		t.Errorf("slept %v, %d requests; want no wait of a minute", w.slept, len(w.stt.Transcriptions()))
	}
}
