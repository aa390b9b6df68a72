package slacktest

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Files people share. Slack puts each file's object in the message event
// (subtype file_share) and serves its bytes at url_private and
// url_private_download on files.slack.com, to a request carrying the bot
// token as a Bearer header. The fake serves them on its own host, at the
// same paths, so an adapter configured with the fake's API URL reaches
// them as it reaches files.slack.com in production.

// File is a file a simulated person shares.
type File struct {
	Name string
	MIME string // the mimetype; "" means application/octet-stream
	Data []byte
	// Size is the size the event declares; zero means len(Data). A test
	// sets it to lie, as a forged or stale event could.
	Size int64
	// Chunked serves the bytes without a Content-Length, so that only
	// reading them tells how many there are.
	Chunked bool
	// DurationMs is an audio clip's length as Slack gives it
	// (duration_ms, subtype slack_audio); 0 sends none.
	DurationMs int
}

// Download is one request for a file's bytes.
type Download struct {
	FileID string
	// Authorized is true when the request carried the bot token as
	// "Authorization: Bearer <token>".
	Authorized bool
	Status     int // the HTTP status answered
}

type storedFile struct {
	File
	id   string
	fail int // answer this status instead of the bytes; 0 serves them
}

// PostUserFiles makes user share files in channel (in the thread threadTS,
// if not empty) with text as the message, delivering a message event of
// subtype file_share carrying the files' objects, and an app_mention with
// them when the text mentions the bot. It returns the message's ts and
// the files' ids, in order.
func (s *Server) PostUserFiles(channel, user, text, threadTS string, files ...File) (ts string, ids []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	objs := make([]map[string]any, 0, len(files))
	for _, f := range files {
		sf := &storedFile{File: f, id: s.st.nextID("F")}
		if sf.MIME == "" {
			sf.MIME = "application/octet-stream"
		}
		if sf.Size == 0 {
			sf.Size = int64(len(sf.Data))
		}
		s.files[sf.id] = sf
		ids = append(ids, sf.id)
		objs = append(objs, s.fileJSON(sf, user))
	}
	return s.postUserLocked(channel, user, text, threadTS, objs), ids
}

// FailFile makes every download of the file id answer status from now on
// (404 as for a deleted file, 500 as for an outage); 0 serves it again.
func (s *Server) FailFile(id string, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.files[id]; ok {
		f.fail = status
	}
}

// FileURL is the url_private_download of the file id, "" for an unknown
// one.
func (s *Server) FileURL(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[id]
	if !ok {
		return ""
	}
	return s.fileURL(f, true)
}

// Downloads returns every request for a file's bytes so far, in order.
func (s *Server) Downloads() []Download {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Download(nil), s.downloads...)
}

// fileURL is url_private (download false) or url_private_download.
func (s *Server) fileURL(f *storedFile, download bool) string {
	path := "/files-pri/" + s.opts.teamID + "-" + f.id + "/"
	if download {
		path += "download/"
	}
	return s.URL + path + url.PathEscape(f.Name)
}

// fileJSON is the file object of a message event, with the fields Slack
// sends for a file hosted by Slack.
func (s *Server) fileJSON(f *storedFile, user string) map[string]any {
	m := map[string]any{
		"id": f.id, "created": 1700000000, "timestamp": 1700000000, "name": f.Name, "title": f.Name,
		"mimetype": f.MIME, "filetype": fileType(f.Name), "pretty_type": fileType(f.Name), "user": user,
		"user_team": s.opts.teamID, "editable": false, "size": f.Size, "mode": "hosted", "is_external": false,
		"external_type": "", "is_public": true, "public_url_shared": false, "display_as_bot": false, "username": "",
		"url_private": s.fileURL(f, false), "url_private_download": s.fileURL(f, true),
		"permalink":   "https://" + s.opts.teamDomain + ".slack.com/files/" + user + "/" + f.id + "/" + url.PathEscape(f.Name),
		"file_access": "visible", "has_rich_preview": false,
	}
	if f.DurationMs > 0 {
		m["duration_ms"], m["subtype"], m["media_display_type"] = f.DurationMs, "slack_audio", "audio"
	}
	return m
}

func fileType(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 && i < len(name)-1 {
		return strings.ToLower(name[i+1:])
	}
	return "binary"
}

// serveFile serves /files-pri/<team>-<id>/[download/]<name>: 403 without
// the bot token, 404 for a file the fake does not have.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	id, _ := strings.CutPrefix(r.PathValue("file"), s.opts.teamID+"-")
	s.mu.Lock()
	authorized := r.Header.Get("Authorization") == "Bearer "+s.opts.botToken
	f, ok := s.files[id]
	status := http.StatusOK
	switch {
	case !ok || f.Name != r.PathValue("name"):
		status = http.StatusNotFound
	case !authorized:
		status = http.StatusForbidden
	case f.fail != 0:
		status = f.fail
	}
	s.downloads = append(s.downloads, Download{FileID: id, Authorized: authorized, Status: status})
	var data []byte
	var mime string
	var chunked bool
	if ok {
		data, mime, chunked = f.Data, f.MIME, f.Chunked
	}
	s.notifyLocked()
	s.mu.Unlock()

	if status != http.StatusOK {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		_, _ = w.Write([]byte("<html><body>" + http.StatusText(status) + "</body></html>"))
		return
	}
	w.Header().Set("Content-Type", mime)
	if !chunked {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	}
	w.WriteHeader(http.StatusOK)
	if chunked {
		_ = http.NewResponseController(w).Flush() // the headers go before the body: no length
	}
	_, _ = w.Write(data)
}
