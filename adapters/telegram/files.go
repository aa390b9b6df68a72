package telegram

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/chat"
)

// Files people send: a document or a photo (in several sizes) comes with
// a file_id and no URL. getFile turns the id into a file_path, valid for
// an hour, and the bytes are at <api base>/file/bot<token>/<file_path>.
// That URL holds the token, so it is built only here, never kept in a
// chat.File (inbox records are stored) and never shown in an error.

// maxBotDownload is the largest file the Bot API lets a bot download
// (getFile: "up to 20MB in size"); a local Bot API server allows more,
// but keeping its limit everywhere costs nothing Parley needs.
const maxBotDownload = 20 << 20

var _ chat.FileFetcher = (*Adapter)(nil)

// filesOf turns what m carries into bot.Files: its document, the largest
// size of its photo (the smaller ones are previews of it), and its voice
// note, audio, video, round video or animation, with the duration
// Telegram gives recordings. The core transcribes voice notes and audio
// when transcription is on; it reads no video, but tells the person so
// (by its declared type, without downloading it) rather than let it go
// unseen.
func filesOf(m *tgbotapi.Message) []chat.File {
	var out []chat.File
	add := func(id, name, mime string, size int, secs ...int) {
		if id != "" {
			f := chat.File{ID: id, Name: name, MIME: mime, Size: int64(size)}
			if len(secs) > 0 {
				f.Duration = time.Duration(secs[0]) * time.Second
			}
			out = append(out, f)
		}
	}
	if d := m.Document; d != nil {
		add(d.FileID, cmp.Or(d.FileName, "document"), d.MimeType, d.FileSize)
	}
	if p, ok := largestPhoto(m.Photo); ok {
		// Telegram re-encodes every photo as a JPEG and names none.
		add(p.FileID, "photo.jpg", "image/jpeg", p.FileSize)
	}
	if v := m.Voice; v != nil {
		add(v.FileID, "voice message", cmp.Or(v.MimeType, "audio/ogg"), v.FileSize, v.Duration)
	}
	if v := m.Audio; v != nil {
		add(v.FileID, cmp.Or(v.FileName, v.Title, "audio"), cmp.Or(v.MimeType, "audio/mpeg"), v.FileSize, v.Duration)
	}
	if v := m.Video; v != nil {
		add(v.FileID, cmp.Or(v.FileName, "video"), cmp.Or(v.MimeType, "video/mp4"), v.FileSize, v.Duration)
	}
	if v := m.VideoNote; v != nil {
		add(v.FileID, "video message", "video/mp4", v.FileSize, v.Duration)
	}
	// An animation comes with the same file as its document, for clients
	// that predate animations: one file, not two.
	if v := m.Animation; v != nil && m.Document == nil {
		add(v.FileID, cmp.Or(v.FileName, "animation"), cmp.Or(v.MimeType, "video/mp4"), v.FileSize)
	}
	return out
}

// stickerText is what a sticker says, as text: its emoji.
func stickerText(s *tgbotapi.Sticker) string {
	if s == nil {
		return ""
	}
	return "[sticker " + cmp.Or(s.Emoji, "without an emoji") + "]"
}

// largestPhoto picks the size with the most pixels, the larger file on a
// tie. Telegram lists sizes smallest first, but says nowhere it must.
func largestPhoto(sizes []tgbotapi.PhotoSize) (tgbotapi.PhotoSize, bool) {
	var best tgbotapi.PhotoSize
	found := false
	for _, p := range sizes {
		if p.FileID == "" {
			continue
		}
		area, bestArea := p.Width*p.Height, best.Width*best.Height
		if !found || area > bestArea || area == bestArea && p.FileSize > best.FileSize {
			best, found = p, true
		}
	}
	return best, found
}

// FetchFile downloads f by its file_id: getFile, then the file from the
// Bot API's host. A file over Telegram's 20 MB limit for bots fails with
// chat.ErrFileTooLarge before getFile is asked. Whatever fails, the error
// never holds the token.
func (a *Adapter) FetchFile(ctx context.Context, f chat.File, max int64) ([]byte, error) {
	b, err := a.fetchFile(ctx, f, max)
	if err != nil {
		return nil, redact(err, a.cfg.Token)
	}
	return b, nil
}

func (a *Adapter) fetchFile(ctx context.Context, f chat.File, max int64) ([]byte, error) {
	if err := chat.CheckFileSize(f, max); err != nil {
		return nil, fmt.Errorf("telegram: %w", err)
	}
	if f.Size > maxBotDownload {
		return nil, tooBigForBots(f, f.Size)
	}
	if f.ID == "" {
		return nil, fmt.Errorf("telegram: %v has no file_id to fetch it by", f)
	}
	res, err := a.call(ctx, "getFile", tgbotapi.Params{"file_id": f.ID})
	if err != nil {
		return nil, getFileError(f, err)
	}
	var tf tgbotapi.File
	if err := json.Unmarshal(res, &tf); err != nil {
		return nil, fmt.Errorf("telegram getFile: %v: %w", f, err)
	}
	if tf.FilePath == "" {
		return nil, fmt.Errorf("telegram getFile: no file_path for %v", f)
	}
	// getFile knows the size where the message did not say it.
	if err := chat.CheckFileSize(chat.File{ID: f.ID, Name: f.Name, Size: int64(tf.FileSize)}, max); err != nil {
		return nil, fmt.Errorf("telegram: %w", err)
	}
	resp, err := adapterkit.Get(ctx, a.http, a.fileURL(tf.FilePath), nil, a.fileHosts)
	if err != nil {
		return nil, fmt.Errorf("telegram: download %v: %w", f, err)
	}
	defer resp.Body.Close()
	if err := fileHost().Status(f, resp); err != nil {
		return nil, err
	}
	b, err := chat.ReadFile(resp.Body, resp.ContentLength, f, max)
	if err != nil {
		return nil, fmt.Errorf("telegram: %w", err)
	}
	return b, nil
}

// fileURL is where the Bot API serves file_path, token and all.
func (a *Adapter) fileURL(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.TrimRight(a.cfg.APIURL, "/") + "/file/bot" + a.cfg.Token + "/" + strings.Join(segs, "/")
}
