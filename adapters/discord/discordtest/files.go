package discordtest

import (
	"net/http"
	"net/url"
	"strconv"
)

// Files sent with messages. Discord puts each attachment's object in
// MESSAGE_CREATE; its url is on cdn.discordapp.com, signed in the query
// (ex, is, hm) and fetched without the bot token. The fake serves the
// bytes on its own host at the CDN's path, /attachments/<channel>/<id>/
// <filename>, so an adapter that trusts its configured API host reaches
// them as it reaches the CDN in production.

// Attachment is a file a simulated person sends with a message.
type Attachment struct {
	Filename    string
	ContentType string // "" sends none, as Discord does for unknown types
	Data        []byte
	// Size is the size the message declares; zero means len(Data). A
	// test sets it to lie.
	Size int64
	// Chunked serves the bytes without a Content-Length, so that only
	// reading them tells how many there are.
	Chunked bool
	// DurationSecs is a voice message's length (duration_secs, with its
	// waveform); 0 sends neither, as for any other file.
	DurationSecs float64
}

// Download is one request for an attachment's bytes.
type Download struct {
	AttachmentID string
	// Authorization is the header the request carried: the CDN needs
	// none, so a bot sending its token there gives it away.
	Authorization string
	Status        int // the HTTP status answered
}

type attachment struct {
	Attachment
	id, channelID, url string
	fail               int // answer this status instead of the bytes; 0 serves them
}

type wireAttachment struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type,omitempty"`
	Size        int64  `json:"size"`
	URL         string `json:"url"`
	ProxyURL    string `json:"proxy_url"`
	// A voice message's: its length and a waveform (base64 bytes).
	DurationSecs float64 `json:"duration_secs,omitempty"`
	Waveform     string  `json:"waveform,omitempty"`
}

// attachLocked stores the attachments of m, a new message.
func (s *Server) attachLocked(m *message, atts []Attachment) {
	for _, a := range atts {
		if a.Size == 0 {
			a.Size = int64(len(a.Data))
		}
		at := &attachment{Attachment: a, id: s.w.snowflake(s.now()), channelID: m.channelID}
		// Signed like the CDN's: ex (expiry), is (issued), hm (signature).
		at.url = s.URL + "/attachments/" + at.channelID + "/" + at.id + "/" + url.PathEscape(a.Filename) +
			"?ex=6700f1a0&is=66ffa020&hm=" + at.id + "cafe&"
		m.attachments = append(m.attachments, at)
	}
}

func (w *world) attachmentsJSON(m *message) []wireAttachment {
	out := []wireAttachment{}
	for _, a := range m.attachments {
		wa := wireAttachment{ID: a.id, Filename: a.Filename, ContentType: a.ContentType, Size: a.Size, URL: a.url, ProxyURL: a.url}
		if a.DurationSecs > 0 {
			wa.DurationSecs, wa.Waveform = a.DurationSecs, "AAAAAAAA"
		}
		out = append(out, wa)
	}
	return out
}

// findAttachmentLocked finds an attachment by id.
func (s *Server) findAttachmentLocked(id string) *attachment {
	for _, m := range s.w.messages {
		for _, a := range m.attachments {
			if a.id == id {
				return a
			}
		}
	}
	return nil
}

// Attachments returns the ids of the attachments of a message, in order.
func (s *Server) Attachments(messageID string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	if m, ok := s.w.messages[messageID]; ok {
		for _, a := range m.attachments {
			ids = append(ids, a.id)
		}
	}
	return ids
}

// AttachmentURL is the url of the attachment id, "" for an unknown one.
func (s *Server) AttachmentURL(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.findAttachmentLocked(id); a != nil {
		return a.url
	}
	return ""
}

// FailAttachment makes every download of the attachment id answer status
// from now on (404 as for an expired link, 500 as for an outage); 0
// serves it again.
func (s *Server) FailAttachment(id string, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.findAttachmentLocked(id); a != nil {
		a.fail = status
	}
}

// Downloads returns every request for an attachment's bytes so far, in
// order.
func (s *Server) Downloads() []Download {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Download(nil), s.downloads...)
}

// serveAttachment serves GET /attachments/<channel>/<id>/<filename>.
func (s *Server) serveAttachment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	a := s.findAttachmentLocked(r.PathValue("id"))
	status := http.StatusOK
	switch {
	case a == nil || a.channelID != r.PathValue("channel") || a.Filename != r.PathValue("name"):
		status = http.StatusNotFound
	case a.fail != 0:
		status = a.fail
	}
	s.downloads = append(s.downloads, Download{AttachmentID: r.PathValue("id"), Authorization: r.Header.Get("Authorization"), Status: status})
	var data []byte
	var ctype string
	var chunked bool
	if a != nil {
		data, ctype, chunked = a.Data, a.ContentType, a.Chunked
	}
	s.notifyLocked()
	s.mu.Unlock()

	if status != http.StatusOK {
		// The CDN answers errors in plain text, not the API's JSON.
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(http.StatusText(status)))
		return
	}
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ctype)
	if !chunked {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	}
	w.WriteHeader(http.StatusOK)
	if chunked {
		_ = http.NewResponseController(w).Flush() // the headers go before the body: no length
	}
	_, _ = w.Write(data)
}
