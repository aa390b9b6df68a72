package main

import (
	"bytes"
	le "encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/chat"
)

// TestDoctorTranscription: doctor sends the endpoint a second of silence
// and says whether it answered; off, it says so.
func TestDoctorTranscription(t *testing.T) {
	for _, tt := range []struct {
		name     string
		model    string
		heard    llmtest.Heard
		wantCode int
		want     string
	}{
		{name: "off", want: "OK    transcription off (transcription.model is empty)"},
		{name: "answers", model: "openai/whisper-1", heard: llmtest.Heard{Text: " "},
			want: "OK    transcription transcription.model openai/whisper-1 answered; recordings of up to 10 minutes are transcribed"},
		{name: "refuses", model: "openai/whisper-1", heard: llmtest.Heard{Status: 404}, wantCode: 1,
			want: "FAIL  transcription transcription.model openai/whisper-1 could not transcribe a second of silence"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.WithAPIKey(goodOpenAI), llmtest.WithResponder(capableModel))
			defer srv.Close()
			srv.EnqueueTranscriptions(tt.heard)
			env := map[string]string{
				"PARLEY_DATA_DIR":            filepath.Join(t.TempDir(), "data"),
				"XDG_CONFIG_HOME":            t.TempDir(),
				"PARLEY_LLM_OPENAI_API_KEY":  goodOpenAI,
				"PARLEY_LLM_OPENAI_BASE_URL": srv.OpenAIBaseURL(),
				"PARLEY_TRANSCRIPTION_MODEL": tt.model,
			}
			var out bytes.Buffer
			e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &out,
				lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
			if code := execute(t.Context(), e, []string{"doctor"}); code != tt.wantCode {
				t.Errorf("exit %d, want %d:\n%s", code, tt.wantCode, out.String())
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("doctor's output lacks %q:\n%s", tt.want, out.String())
			}
			if tt.model != "" {
				stt := srv.Transcriptions()
				if len(stt) != 1 || stt[0].FileName != "doctor.wav" || len(stt[0].Data) != 44+32000 || string(stt[0].Data[8:12]) != "WAVE" {
					t.Errorf("transcription requests %+v", stt)
				}
			}
		})
	}
}

func TestSilence(t *testing.T) {
	b := silence(time.Second)
	if len(b) != 44+32000 || string(b[:4]) != "RIFF" || le.LittleEndian.Uint32(b[4:]) != uint32(len(b)-8) ||
		le.LittleEndian.Uint32(b[24:]) != 16000 || le.LittleEndian.Uint32(b[40:]) != 32000 {
		t.Errorf("header % x", b[:44])
	}
}

// TestAudioKeeper: a kept recording is named by its message and file,
// whatever characters those hold, in a directory of its day, 0600.
func TestAudioKeeper(t *testing.T) {
	dir := t.TempDir()
	day := time.Date(2026, 12, 6, 23, 30, 0, 0, time.FixedZone("x", -3600))
	keep := audioKeeper(dir, func() time.Time { return day })
	m := chat.Message{Key: "telegram:42:../../7"}
	for _, f := range []chat.File{
		{ID: "F1", Name: "voice message", MIME: "audio/ogg; codecs=opus"},
		{ID: "F/2", Name: "song.MP3", MIME: "audio/mpeg"},
		{ID: "F3", Name: "x.../../a", MIME: "application/x-unknown"},
	} {
		if err := keep(t.Context(), m, f, []byte("sound")); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	want := []string{"telegram_42_______7-F1.ogg", "telegram_42_______7-F3.audio", "telegram_42_______7-F_2.mp3"}
	if len(got) != len(want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
	for i, p := range got {
		fi, err := os.Stat(p)
		if err != nil || filepath.Base(p) != want[i] || filepath.Base(filepath.Dir(p)) != "2026-12-07" || fi.Mode().Perm() != 0o600 {
			t.Errorf("kept %s (%v, %v), want %s in 2026-12-07, 0600", p, fi.Mode(), err, want[i])
		}
	}
}
