package telegramtest

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Files people send. A document or photo arrives in the message's
// update with a file_id; the bot asks getFile for a file_path and then
// downloads GET /file/bot<token>/<file_path> from the same server. Bots
// may download files of up to 20 MB: getFile refuses larger ones.

// MaxDownload is the Bot API's limit on the files a bot may download.
const MaxDownload = 20 << 20

// Attachment is a file a person sends (Incoming.Document, Photo, Voice,
// Audio).
type Attachment struct {
	Name string // file_name (documents only)
	MIME string // mime_type (documents only)
	Data []byte
	// Size is the file_size the update and getFile declare; zero means
	// len(Data). A test sets it to lie, or to pass the 20 MB limit
	// without 20 MB of data.
	Size int64
	// Chunked serves the bytes without a Content-Length, so that only
	// reading them tells how many there are.
	Chunked bool
}

// Download is one request for a file's bytes.
type Download struct {
	FileID string
	Path   string // the file_path requested
	Status int    // the HTTP status answered
}

type storedFile struct {
	Attachment
	id, uniqueID, path string
	fail               int // answer this status instead of the bytes; 0 serves them
}

type wireDocument struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int64  `json:"file_size,omitempty"`
}

type wirePhotoSize struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	FileSize     int64  `json:"file_size,omitempty"`
}

// wireAudio is a voice note (Voice) or an audio file (Audio): both carry
// the length the sender's client measured.
type wireAudio struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Duration     int    `json:"duration"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int64  `json:"file_size,omitempty"`
}

type wireFile struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileSize     int64  `json:"file_size,omitempty"`
	FilePath     string `json:"file_path,omitempty"`
}

// attachLocked stores in's document or photo and puts it on m, whose text
// becomes its caption. It returns the file_id a bot downloads: the
// document's, or the largest photo size's.
func (s *Server) attachLocked(m *message, in Incoming) string {
	switch {
	case in.Document != nil:
		f := s.storeFileLocked(*in.Document, "documents", in.Document.Name)
		m.caption = true
		m.document = &wireDocument{FileID: f.id, FileUniqueID: f.uniqueID, FileName: f.Name, MimeType: f.MIME, FileSize: f.Size}
		return f.id
	case in.Photo != nil:
		// Telegram sends a photo in several sizes, smallest first.
		thumb := s.storeFileLocked(Attachment{Data: []byte("thumbnail")}, "photos", "thumb.jpg")
		f := s.storeFileLocked(*in.Photo, "photos", "photo.jpg")
		m.caption = true
		m.photo = []wirePhotoSize{
			{FileID: thumb.id, FileUniqueID: thumb.uniqueID, Width: 90, Height: 68, FileSize: thumb.Size},
			{FileID: f.id, FileUniqueID: f.uniqueID, Width: 1280, Height: 960, FileSize: f.Size},
		}
		return f.id
	case in.Voice != nil:
		f := s.storeFileLocked(*in.Voice, "voice", "file.oga")
		m.caption = true
		m.voice = &wireAudio{FileID: f.id, FileUniqueID: f.uniqueID, Duration: in.Duration, MimeType: cmp.Or(f.MIME, "audio/ogg"), FileSize: f.Size}
		return f.id
	case in.Audio != nil:
		f := s.storeFileLocked(*in.Audio, "music", in.Audio.Name)
		m.caption = true
		m.audio = &wireAudio{FileID: f.id, FileUniqueID: f.uniqueID, Duration: in.Duration, FileName: f.Name, MimeType: cmp.Or(f.MIME, "audio/mpeg"), FileSize: f.Size}
		return f.id
	}
	return ""
}

func (s *Server) storeFileLocked(a Attachment, dir, name string) *storedFile {
	if a.Size == 0 {
		a.Size = int64(len(a.Data))
	}
	n := len(s.files) + 1
	ext := ""
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		ext = name[i:]
	}
	f := &storedFile{
		Attachment: a,
		id:         fmt.Sprintf("BQACAgIAAxkBAAI%04d", n),
		uniqueID:   fmt.Sprintf("AgAD%04d", n),
		path:       fmt.Sprintf("%s/file_%d%s", dir, n, ext),
	}
	s.files[f.id] = f
	return f
}

// FailFile makes every download of the file file_id answer status from
// now on (404 as for an expired file_path, 500 as for an outage); 0
// serves it again. getFile still answers.
func (s *Server) FailFile(fileID string, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.files[fileID]; ok {
		f.fail = status
	}
}

// Downloads returns every request for a file's bytes so far, in order.
func (s *Server) Downloads() []Download {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Download(nil), s.downloads...)
}

func (s *Server) getFile(_ context.Context, p params) (any, error) {
	id := p["file_id"]
	if id == "" {
		return nil, badRequest("file_id is empty")
	}
	f, ok := s.files[id]
	if !ok {
		return nil, badRequest("invalid file_id")
	}
	if f.Size > MaxDownload {
		return nil, badRequest("file is too big")
	}
	return wireFile{FileID: f.id, FileUniqueID: f.uniqueID, FileSize: f.Size, FilePath: f.path}, nil
}

// serveFile serves GET /file/bot<token>/<file_path>.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/file/bot")
	token, path, _ := strings.Cut(rest, "/")
	s.mu.Lock()
	var f *storedFile
	for _, sf := range s.files {
		if sf.path == path {
			f = sf
		}
	}
	status := http.StatusOK
	switch {
	case token != s.opts.token:
		status = http.StatusUnauthorized
	case f == nil || r.Method != http.MethodGet:
		status = http.StatusNotFound
	case f.fail != 0:
		status = f.fail
	}
	d := Download{Path: path, Status: status}
	var data []byte
	var chunked bool
	if f != nil {
		d.FileID, data, chunked = f.id, f.Data, f.Chunked
	}
	s.downloads = append(s.downloads, d)
	s.notifyLocked()
	s.mu.Unlock()

	if status != http.StatusOK {
		writeAnswer(w, nil, &apiError{Code: status, Description: http.StatusText(status)})
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if !chunked {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	}
	w.WriteHeader(http.StatusOK)
	if chunked {
		_ = http.NewResponseController(w).Flush() // the headers go before the body: no length
	}
	_, _ = w.Write(data)
}
