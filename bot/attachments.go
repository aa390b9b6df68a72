package bot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/media"
	"github.com/parleybot/parley/chat"
)

// What people attach (docs/attachments.md). A turn reads its messages'
// files before the model is asked: each is downloaded by its adapter
// (FileFetcher: the platform's API, the bot's credentials, the platform's
// own hosts only), then told apart by content — a picture becomes an image
// for the model (agent/media: checked, scaled), anything else goes
// through the knowledge base's extractors and becomes text of the turn,
// capped. Nothing is dropped silently: what could not be read is said to
// the person, in the conversation, and to the model, in the text.
//
// Files are read when the turn starts, not when the message arrives: the
// receive path only records the message (with its files' descriptions),
// so a slow download never holds up a platform's acknowledgement, and a
// message recovered after a crash is read again from the platform.

// Defaults of Attachments.
const (
	DefaultMaxFiles  = 10
	DefaultMaxBytes  = 20 << 20 // Telegram's limit on what a bot may download
	DefaultFileChars = 20_000
)

// Attachments bound what is read of the files people attach to messages.
// Zero fields take the defaults.
type Attachments struct {
	// MaxFiles are read per message; more are named as not read.
	MaxFiles int
	// MaxBytes is the most downloaded of one file.
	MaxBytes int64
	// FileChars is the most text taken from one file; the rest is cut,
	// and the cut is said.
	FileChars int
	// Images bound the pictures (agent/media).
	Images media.Limits
	// Audio transcribes voice notes and audio files
	// (attachments_audio.go); off, they are answered as not read.
	Audio Transcription
}

func (a Attachments) withDefaults() Attachments {
	if a.MaxFiles <= 0 {
		a.MaxFiles = DefaultMaxFiles
	}
	if a.MaxBytes <= 0 {
		a.MaxBytes = DefaultMaxBytes
	}
	if a.FileChars <= 0 {
		a.FileChars = DefaultFileChars
	}
	return a
}

// decodeSlots bounds the pictures decoded at once across the process: a
// decoded picture takes up to 4 bytes a pixel (160 MB at the default
// 40-megapixel cap), and turns run in parallel.
const decodeSlots = 2

// attached is what the messages of a turn, files read, come to.
type attached struct {
	text   string // the messages' texts, each followed by its files'
	images []llm.Image
	// read counts what there is to answer: messages with words, files
	// read. Lines about files that failed do not count.
	read int
	// problems are what the person is told: files not read or read in
	// part, one line each.
	problems []string
	// heard are the transcripts of recordings, shortened, that the
	// person is shown.
	heard []string
}

// empty reports whether there is nothing for the model: no words, no
// file read (every file failed, and the message had no text).
func (a attached) empty() bool { return a.read == 0 }

// readTurn reads the files of msgs, the messages of session sid,
// joining their texts as joinTexts does, shows the person what was heard
// of their recordings and tells them what could not be read. An error
// means the turn must not run now (shutdown).
func (r *Router) readTurn(ctx context.Context, sid string, msgs []chat.Message) (attached, error) {
	var out attached
	texts := make([]string, 0, len(msgs))
	for _, m := range msgs {
		a, err := r.readFiles(ctx, sid, m, len(out.images))
		if err != nil {
			return attached{}, err
		}
		texts = append(texts, a.text)
		out.read += a.read
		out.images = append(out.images, a.images...)
		out.problems = append(out.problems, a.problems...)
		r.tellHeard(ctx, m, a.heard)
	}
	out.text = strings.Join(texts, "\n\n")
	if len(out.problems) > 0 {
		r.tellProblems(ctx, msgs[0], out.problems)
	}
	if len(out.images) > 0 {
		if ag, _, _ := r.agentAt(ctx, Where{Thread: msgs[0].Thread, User: msgs[0].User, Direct: msgs[0].Direct}); ag.Runner.Blind {
			r.tellBlind(ctx, msgs[0])
		}
	}
	return out, nil
}

// readFiles reads m's files. Images are numbered from after, the images
// earlier messages of the turn had.
func (r *Router) readFiles(ctx context.Context, sid string, m chat.Message, after int) (attached, error) {
	out := attached{text: m.Text}
	if strings.TrimSpace(m.Text) != "" {
		out.read++
	}
	if len(m.Files) == 0 {
		return out, nil
	}
	lim := r.cfg.Attachments.withDefaults()
	var parts []string
	if m.Text != "" {
		parts = append(parts, m.Text)
	}
	if r.cfg.DiskFloor != nil {
		if err := r.cfg.DiskFloor(); err != nil {
			// Nothing is downloaded: a file read is a file kept (an
			// image in the transcript), and the space left is the
			// database's.
			parts = append(parts, fmt.Sprintf("[%d file(s) were attached but not read: the server is low on disk space]", len(m.Files)))
			out.problems = append(out.problems, "Your files were not read: "+err.Error()+".")
			out.text = strings.Join(parts, "\n\n")
			return out, nil
		}
	}
	fetcher, canFetch := r.adapters[m.Thread.Platform].(chat.FileFetcher)
	for i, f := range m.Files {
		if i == lim.MaxFiles {
			n := len(m.Files) - i
			parts = append(parts, fmt.Sprintf("[%d more files were attached but not read: at most %d per message]", n, lim.MaxFiles))
			out.problems = append(out.problems, fmt.Sprintf("You attached %d files; I read the first %d.", len(m.Files), lim.MaxFiles))
			break
		}
		name := fileName(f)
		if soundOrMotion(f.MIME) == "audio" && lim.Audio.on() {
			a, err := r.readAudio(ctx, sid, m, f, name, lim)
			if err != nil {
				return attached{}, err
			}
			parts = append(parts, a.text)
			if a.ok {
				out.read++
				out.heard = append(out.heard, a.heard)
			}
			if a.problem != "" {
				out.problems = append(out.problems, a.problem)
			}
			continue
		}
		if kind := soundOrMotion(f.MIME); kind != "" {
			// Not downloaded: nothing here reads it, and a video may be large.
			parts = append(parts, fmt.Sprintf("[file %s was attached but not read: %s is not read]", name, kind))
			out.problems = append(out.problems, fmt.Sprintf("%s: I cannot listen to audio or watch video. "+
				"Send what it says as text, or pictures of what matters in it.", name))
			continue
		}
		if !canFetch {
			parts = append(parts, fmt.Sprintf("[file %s was attached but cannot be downloaded from this platform]", name))
			out.problems = append(out.problems, name+": files cannot be downloaded from this platform.")
			continue
		}
		data, err := fetcher.FetchFile(ctx, f, lim.MaxBytes)
		if ctx.Err() != nil {
			return attached{}, ctx.Err() // shutdown: read again after the restart
		}
		if err != nil {
			r.log.Warn("attachment not downloaded", "key", m.Key, "file", f.String(), "err", err)
			why := whyNotDownloaded(err, lim.MaxBytes)
			parts = append(parts, fmt.Sprintf("[file %s was attached but not read: %s]", name, why))
			out.problems = append(out.problems, fmt.Sprintf("%s: not read, %s.", name, why))
			continue
		}
		if media.Sniff(f.Name, data) != "" {
			img, err := r.prepareImage(ctx, data, name, lim.Images)
			if ctx.Err() != nil {
				return attached{}, ctx.Err()
			}
			if err != nil {
				parts = append(parts, fmt.Sprintf("[image %s was attached but could not be read: %v]", name, err))
				out.problems = append(out.problems, fmt.Sprintf("%s: I could not read this picture: %v.", name, err))
				continue
			}
			out.images = append(out.images, img)
			out.read++
			parts = append(parts, fmt.Sprintf("[image %d: %s]", after+len(out.images), name))
			continue
		}
		text, ok, problem := readText(ctx, f, name, data, lim.FileChars)
		if ctx.Err() != nil {
			return attached{}, ctx.Err()
		}
		parts = append(parts, text)
		if ok {
			out.read++
		}
		if problem != "" {
			out.problems = append(out.problems, problem)
		}
	}
	out.text = strings.Join(parts, "\n")
	return out, nil
}

// whyNotDownloaded says why a download failed, for people: too large,
// or failed (the cause is logged).
func whyNotDownloaded(err error, max int64) string {
	if errors.Is(err, chat.ErrFileTooLarge) {
		return fmt.Sprintf("it is larger than the %s I download", kb.Size(max))
	}
	return "the download failed"
}

// soundOrMotion says "audio" or "video" when the declared type is one:
// the files Parley cannot read whatever their content.
func soundOrMotion(mime string) string {
	mime = strings.ToLower(strings.TrimSpace(mime))
	switch {
	case strings.HasPrefix(mime, "audio/"):
		return "audio"
	case strings.HasPrefix(mime, "video/"):
		return "video"
	}
	return ""
}

// prepareImage runs media.Prepare in one of the decode slots.
func (r *Router) prepareImage(ctx context.Context, data []byte, name string, lim media.Limits) (llm.Image, error) {
	select {
	case r.decode <- struct{}{}:
		defer func() { <-r.decode }()
	case <-ctx.Done():
		return llm.Image{}, ctx.Err()
	}
	return media.Prepare(data, name, lim)
}

// readText is a file's text as the model reads it, at most limit
// characters, whether any was read, and what the person is told ("" when
// it was read whole).
func readText(ctx context.Context, f chat.File, name string, data []byte, limit int) (text string, ok bool, problem string) {
	ex, err := kb.Extract(ctx, f.Name, f.MIME, data)
	switch {
	case errors.Is(err, kb.ErrEmpty):
		return fmt.Sprintf("[file %s was attached but has no text to read]", name), false,
			fmt.Sprintf("%s has no text I can read (a scanned PDF has none: send its pages as pictures).", name)
	case errors.Is(err, kb.ErrUnsupported) && !strings.HasPrefix(http.DetectContentType(data), "text/"):
		// Binary: say its type by content (what was declared may lie).
		// A text in an unknown encoding falls to the case below, whose
		// error says to save it as UTF-8.
		typ, _, _ := strings.Cut(http.DetectContentType(data), ";")
		return fmt.Sprintf("[file %s was attached but could not be read: its type, %s, is not one I read]", name, typ), false,
			fmt.Sprintf("%s: I cannot read this kind of file (%s). I read pictures (PNG, JPEG, GIF, WebP, BMP, TIFF) "+
				"and text: plain, Markdown, code, CSV, JSON, HTML and PDF.", name, typ)
	case err != nil:
		return fmt.Sprintf("[file %s was attached but could not be read: %v]", name, err), false,
			fmt.Sprintf("%s: I could not read it: %v.", name, err)
	}
	body, n := ex.Text, utf8.RuneCountInString(ex.Text)
	head := fmt.Sprintf("[file %s (%s), %d characters]", name, ex.Kind, n)
	if n <= limit {
		return head + "\n" + strings.TrimRight(body, "\r\n") + "\n[end of " + name + "]", true, ""
	}
	body = firstRunes(body, limit)
	return fmt.Sprintf("%s\n%s\n[… %s continues for %d more characters, not read: at most %d are read of one file]", head, body, name, n-limit, limit),
		true, fmt.Sprintf("%s is long: I read its first %d of %d characters.", name, limit, n)
}

// firstRunes is the first n runes of s.
func firstRunes(s string, n int) string {
	cut := 0
	for i := range s {
		if cut == n {
			return s[:i]
		}
		cut++
	}
	return s
}

// fileName is how a file is called to people and the model: its name,
// on one line.
func fileName(f chat.File) string {
	name := strings.Join(strings.Fields(f.Name), " ")
	if name == "" {
		return "a file"
	}
	return name
}

// tellProblems says in m's conversation which files were not read, and
// why. It is said, not just logged: a picture dropped quietly would leave
// the person believing the model saw it.
func (r *Router) tellProblems(ctx context.Context, m chat.Message, problems []string) {
	text := "I could not read everything you attached:\n• " + strings.Join(problems, "\n• ")
	if _, err := r.cfg.Outbound.Post(ctx, m.Thread, chat.Out{Text: text, ReplyTo: m.ID}); err != nil {
		r.log.Warn("could not say which attachments were not read", "key", m.Key, "err", err)
	}
}

// tellBlind tells a person, once per model, that the model cannot see the
// pictures they send; the model itself gets a note for each (agent).
func (r *Router) tellBlind(ctx context.Context, m chat.Message) {
	flag := "blind-told:" + r.cfg.Model + ":" + m.User.Key()
	if _, told, err := r.cfg.KV.Get(ctx, flag); err != nil || told {
		return
	}
	if err := r.cfg.KV.Set(ctx, flag, m.Key); err != nil {
		r.log.Warn("remember telling about images", "err", err)
		return
	}
	model := r.cfg.Model
	if model == "" {
		model = "the model I use here"
	}
	text := fmt.Sprintf("%s cannot see images, so I cannot look at your pictures; I can still read text files and PDFs. (I will not say this again.)", model)
	if _, err := r.cfg.Outbound.Post(ctx, m.Thread, chat.Out{Text: text, ReplyTo: m.ID}); err != nil {
		r.log.Warn("could not say that the model cannot see images", "key", m.Key, "err", err)
	}
}
