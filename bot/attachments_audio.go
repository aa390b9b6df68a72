package bot

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/transcribe"
	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/clock"
)

// Voice notes and audio (docs/attachments.md#voice-notes-and-audio). With
// a speech-to-text model configured, a recording people attach is
// downloaded like any file, sent to the model's /audio/transcriptions
// endpoint, and its transcript becomes the person's words in the turn,
// marked as transcribed; the person sees what was heard. A recording
// longer than the limit is refused unread where the platform says its
// length, and after transcription where only the endpoint does (the
// transcript is then not used). The audio is held in memory only, unless
// the operator keeps it (Transcription.Keep).

// DefaultMaxAudio is the longest recording transcribed by default
// (transcription.max_minutes).
const DefaultMaxAudio = 10 * time.Minute

// TranscriptionAgent is who transcriptions are counted for in the costs,
// beside the agents: /usage and the console's Usage page show it.
const TranscriptionAgent = "transcription"

// Transcriber turns speech into text (agent/transcribe.Client).
type Transcriber interface {
	Transcribe(ctx context.Context, model string, a transcribe.Audio) (transcribe.Result, error)
}

// Transcription says how recordings are transcribed. The zero value is
// off: audio is answered as not read.
type Transcription struct {
	// Transcriber calls the endpoint; nil is off.
	Transcriber Transcriber
	// Model is the "provider/model" transcribing, the name its costs are
	// kept under; the provider's own name (after the first "/") is what
	// the endpoint is asked for.
	Model string
	// MaxDuration is the longest recording transcribed; 0 is
	// DefaultMaxAudio.
	MaxDuration time.Duration
	// Price is what a minute costs (Price.PerMinute), when Priced.
	Price  llm.Price
	Priced bool
	// Sleep waits before the one retry of a transcription that failed
	// for a transient reason (a 429, a 5xx, the network), at most
	// maxRetryWait; nil is clock.Sleep.
	Sleep func(ctx context.Context, d time.Duration) error
	// Keep, when set, keeps a recording after its transcription (the
	// operator's transcription.keep); its error is logged, never the
	// person's problem.
	Keep func(ctx context.Context, m chat.Message, f chat.File, data []byte) error
}

func (t Transcription) on() bool { return t.Transcriber != nil && t.Model != "" }

func (t Transcription) max() time.Duration {
	if t.MaxDuration <= 0 {
		return DefaultMaxAudio
	}
	return t.MaxDuration
}

// heardChars is the most of a transcript the person is shown: the line
// says what was understood, it does not repeat a long note.
const heardChars = 280

// audioRead is what one recording came to.
type audioRead struct {
	text    string // the line(s) for the model
	ok      bool   // the transcript is the person's words
	problem string // what the person is told, "" when all went well
	heard   string // what the person is shown as heard, "" when nothing
}

// readAudio transcribes f, a recording of m. An error means shutdown.
func (r *Router) readAudio(ctx context.Context, sid string, m chat.Message, f chat.File, name string, lim Attachments) (audioRead, error) {
	t, maxLen := lim.Audio, lim.Audio.max()
	if f.Duration > maxLen {
		return tooLong(name, f.Duration, maxLen), nil
	}
	fetcher, ok := r.adapters[m.Thread.Platform].(chat.FileFetcher)
	if !ok {
		return audioRead{text: fmt.Sprintf("[file %s was attached but cannot be downloaded from this platform]", name),
			problem: name + ": files cannot be downloaded from this platform."}, nil
	}
	data, err := fetcher.FetchFile(ctx, f, lim.MaxBytes)
	if ctx.Err() != nil {
		return audioRead{}, ctx.Err()
	}
	if err != nil {
		r.log.Warn("recording not downloaded", "key", m.Key, "file", f.String(), "err", err)
		why := whyNotDownloaded(err, lim.MaxBytes)
		return audioRead{text: fmt.Sprintf("[file %s was attached but not transcribed: %s]", name, why),
			problem: fmt.Sprintf("%s: not transcribed, %s.", name, why)}, nil
	}
	res, err := t.transcribe(ctx, transcribe.Audio{Name: f.Name, MIME: f.MIME, Data: data})
	if ctx.Err() != nil {
		return audioRead{}, ctx.Err()
	}
	length := cmpDuration(res.Duration, f.Duration)
	if err == nil || errors.Is(err, transcribe.ErrEmpty) {
		// Paid for once the endpoint heard it, whatever is done with it.
		r.transcribed(ctx, sid, m, length)
	}
	if err != nil {
		r.log.Warn("recording not transcribed", "key", m.Key, "file", f.String(), "err", err)
		return notHeard(name, err), nil
	}
	if res.Duration > maxLen {
		return tooLong(name, res.Duration, maxLen), nil
	}
	if t.Keep != nil {
		if err := t.Keep(ctx, m, f, data); err != nil {
			r.log.Error("keep a recording", "key", m.Key, "file", f.String(), "err", err)
		}
	}
	out := audioRead{
		text:  fmt.Sprintf("[%s, transcribed]\n%s", recordingLabel(name, length), res.Text),
		ok:    true,
		heard: format.Squash(res.Text, heardChars),
	}
	if n := utf8.RuneCountInString(res.Text); n > lim.FileChars {
		// As long as a file's text may be, no longer: the cut is said.
		out.text = fmt.Sprintf("[%s, transcribed]\n%s\n[… the transcript continues for %d more characters, not read: at most %d are read of one file]",
			recordingLabel(name, length), firstRunes(res.Text, lim.FileChars), n-lim.FileChars, lim.FileChars)
		out.problem = fmt.Sprintf("%s is long: I read the first %d of the %d characters I heard.", name, lim.FileChars, n)
	}
	return out, nil
}

// maxRetryWait is the longest a transcription waits to be tried again:
// the person is waiting for their answer. A server asking for longer is
// not asked again; the person is told to send the recording later.
const maxRetryWait = 10 * time.Second

// transcribe asks the endpoint, and once more after a transient failure
// whose wait (Retry-After, else a second) is short.
func (t Transcription) transcribe(ctx context.Context, a transcribe.Audio) (transcribe.Result, error) {
	_, model, _ := strings.Cut(t.Model, "/")
	res, err := t.Transcriber.Transcribe(ctx, model, a)
	e, ok := llm.AsError(err)
	if !ok || !e.Retryable() || e.RetryAfter > maxRetryWait {
		return res, err
	}
	sleep := t.Sleep
	if sleep == nil {
		sleep = clock.Sleep
	}
	if err := sleep(ctx, max(e.RetryAfter, time.Second)); err != nil {
		return transcribe.Result{}, err
	}
	return t.Transcriber.Transcribe(ctx, model, a)
}

// cmpDuration is the first of ds that is known (positive).
func cmpDuration(ds ...time.Duration) time.Duration {
	for _, d := range ds {
		if d > 0 {
			return d
		}
	}
	return 0
}

// recordingLabel names a recording for the model: "voice message, 0:42",
// "audio standup.mp3, 12:03".
func recordingLabel(name string, d time.Duration) string {
	label := "voice message"
	if name != "voice message" {
		label = "audio " + name
	}
	if d > 0 {
		label += ", " + clockLength(d)
	}
	return label
}

// clockLength is d as a player shows it: 0:42, 12:03, 1:02:03.
func clockLength(d time.Duration) string {
	s := int64(math.Round(d.Seconds()))
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// minutes is d in whole minutes, rounded up: "11 minutes long".
func minutes(d time.Duration) string {
	n := int64(math.Ceil(d.Minutes()))
	if n == 1 {
		return "1 minute"
	}
	return fmt.Sprintf("%d minutes", n)
}

// tooLong is the answer for a recording past the limit.
func tooLong(name string, d, limit time.Duration) audioRead {
	lim := int64(limit / time.Minute)
	return audioRead{
		text:    fmt.Sprintf("[%s was attached but not transcribed: it is %s long; at most %d are transcribed]", name, minutes(d), lim),
		problem: fmt.Sprintf("%s is %s long; I transcribe at most %d. Send a shorter one, or what it says as text.", name, minutes(d), lim),
	}
}

// notHeard is the answer for a recording the endpoint did not transcribe.
func notHeard(name string, err error) audioRead {
	why, tell := "", ""
	e, isLLM := llm.AsError(err)
	switch {
	case errors.Is(err, transcribe.ErrEmpty):
		why, tell = "no words were heard in it", name+": I heard no words in it."
	case errors.Is(err, transcribe.ErrTooLarge):
		why = "it is larger than the transcription service accepts"
		tell = name + ": it is larger than the transcription service accepts; send a shorter one."
	case isLLM && e.Retryable():
		why = "the transcription service is unavailable"
		tell = name + ": the transcription service is unavailable right now; send it again in a moment."
	default:
		why = "the transcription failed"
		tell = fmt.Sprintf("%s: I could not transcribe it: %v.", name, err)
	}
	return audioRead{text: fmt.Sprintf("[%s was attached but not transcribed: %s]", name, why), problem: tell}
}

// transcribed keeps what transcribing d of m's audio cost, counted for
// m's author like a model call of theirs (the money limits included), as
// the agent "transcription". A length nobody knows is kept unpriced.
func (r *Router) transcribed(ctx context.Context, sid string, m chat.Message, d time.Duration) {
	if r.cfg.Costs == nil && r.cfg.Metrics == nil {
		return
	}
	t := r.cfg.Attachments.Audio
	c := Cost{At: r.cfg.Now(), User: m.User.Key(), Agent: TranscriptionAgent, Session: sid, Model: t.Model,
		Place: placeOf(Where{Thread: m.Thread, User: m.User, Direct: m.Direct})}
	if t.Priced && d > 0 {
		c.Nanos, c.Priced = t.Price.AudioNanos(d), true
	}
	r.spent(context.WithoutCancel(ctx), c, m.Thread, m.User)
}

// tellHeard shows the person what was heard of m's recordings, in m's
// conversation, through the one paced way out.
func (r *Router) tellHeard(ctx context.Context, m chat.Message, heard []string) {
	if len(heard) == 0 {
		return
	}
	text := "🎙 heard: " + strings.Join(heard, "\n🎙 heard: ")
	if _, err := r.cfg.Outbound.Post(ctx, m.Thread, chat.Out{Text: format.NeutralizeMentions(text), ReplyTo: m.ID}); err != nil {
		r.log.Warn("could not say what was heard", "key", m.Key, "err", err)
	}
}
