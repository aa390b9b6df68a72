package slack

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/chat"
)

// newFileAdapter is an adapter on srv, not running: FetchFile needs no
// socket.
func newFileAdapter(t *testing.T, srv *slacktest.Server) *Adapter {
	t.Helper()
	ad, err := New(Config{BotToken: srv.BotToken(), AppToken: srv.AppToken(), APIURL: srv.URL + "/",
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return ad
}

// TestFileSharedReachesTheHandlerAndDownloads: a person shares a file with
// "/kb add" in a DM; the message the handler gets carries it, and
// FetchFile downloads it from the URL in the event with the bot token.
func TestFileSharedReachesTheHandlerAndDownloads(t *testing.T) {
	srv := slacktest.NewServer(slacktest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	ad := newFileAdapter(t, srv)
	srv.AddUser("UALICE", "alice")
	srv.AddChannel("DALICE", "DALICE", slacktest.IM)
	h := &recordingHandler{}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- ad.Run(runCtx, h) }()
	defer func() { stop(); <-done }()

	data := []byte("# Handbook\nBe kind.\n")
	_, ids := srv.PostUserFiles("DALICE", "UALICE", "/kb add", "", slacktest.File{Name: "hand book.md", MIME: "text/markdown", Data: data})
	if err := srv.WaitFor(ctx, func() bool { return len(h.messages()) > 0 }); err != nil {
		t.Fatalf("no message: %v", err)
	}
	m := h.messages()[0]
	want := chat.File{ID: ids[0], Name: "hand book.md", MIME: "text/markdown", Size: int64(len(data)), URL: srv.FileURL(ids[0])}
	if m.Text != "/kb add" || len(m.Files) != 1 || m.Files[0] != want {
		t.Fatalf("message %q with files %+v, want %+v", m.Text, m.Files, want)
	}
	got, err := ad.FetchFile(ctx, m.Files[0], 1<<20)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("FetchFile = %q, %v", got, err)
	}
	if d := srv.Downloads(); len(d) != 1 || !d[0].Authorized || d[0].Status != http.StatusOK {
		t.Errorf("downloads %+v, want one with the bot token", d)
	}
}

// foreignHost is an HTTP server standing for a host that is not Slack's:
// it records every request and the Authorization header it carried.
type foreignHost struct {
	*httptest.Server
	mu    sync.Mutex
	auths []string
}

func newForeignHost(t *testing.T) *foreignHost {
	f := &foreignHost{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.auths = append(f.auths, r.Header.Get("Authorization"))
		f.mu.Unlock()
		_, _ = io.WriteString(w, "not yours")
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *foreignHost) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.auths...)
}

func TestFetchFile(t *testing.T) {
	srv := slacktest.NewServer(slacktest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	ad := newFileAdapter(t, srv)
	foreign := newForeignHost(t)
	big := bytes.Repeat([]byte("x"), 1000)
	share := func(f slacktest.File) chat.File {
		_, ids := srv.PostUserFiles("C1", "U1", "/kb add", "", f)
		size := f.Size
		if size == 0 {
			size = int64(len(f.Data))
		}
		return chat.File{ID: ids[0], Name: f.Name, MIME: f.MIME, Size: size, URL: srv.FileURL(ids[0])}
	}
	gone := share(slacktest.File{Name: "gone.txt", Data: []byte("x")})
	srv.FailFile(gone.ID, http.StatusNotFound)
	broken := share(slacktest.File{Name: "broken.txt", Data: []byte("x")})
	srv.FailFile(broken.ID, http.StatusInternalServerError)
	forged := share(slacktest.File{Name: "forged.txt", Data: []byte("x")})
	forged.URL = foreign.URL + "/files-pri/T0000TEST-" + forged.ID + "/download/forged.txt"

	tests := []struct {
		name      string
		file      chat.File
		max       int64
		want      string
		err       error  // errors.Is
		errText   string // in the message
		downloads int    // requests the fake's file host got
	}{
		{name: "fits", file: share(slacktest.File{Name: "a.txt", MIME: "text/plain", Data: []byte("hello")}), max: 5,
			want: "hello", downloads: 1},
		{name: "declared size over the limit: nothing downloaded", file: share(slacktest.File{Name: "big.bin", Data: big}), max: 999,
			err: chat.ErrFileTooLarge, errText: "1000 bytes"},
		{name: "a lying declared size is enforced while reading", file: share(slacktest.File{Name: "liar.bin", Data: big, Size: 10, Chunked: true}),
			max: 100, err: chat.ErrFileTooLarge, errText: "declared as 10", downloads: 1},
		{name: "a lying declared size meets Content-Length", file: share(slacktest.File{Name: "liar2.bin", Data: big, Size: 10}),
			max: 100, err: chat.ErrFileTooLarge, downloads: 1},
		{name: "404", file: gone, max: 100, errText: "is gone (HTTP 404 Not Found)", downloads: 1},
		{name: "500", file: broken, max: 100, errText: "failed serving", downloads: 1},
		{name: "a foreign host is refused", file: forged, max: 100, err: adapterkit.ErrHostRefused, errText: "not on Slack's file host"},
		{name: "no URL", file: chat.File{ID: "F9", Name: "remote"}, max: 100, errText: "no download URL"},
		{name: "no limit", file: gone, max: 0, errText: "not positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(srv.Downloads())
			got, err := ad.FetchFile(t.Context(), tt.file, tt.max)
			if tt.err != nil || tt.errText != "" {
				if err == nil || (tt.err != nil && !errors.Is(err, tt.err)) || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("FetchFile = %q, %v; want %v with %q", got, err, tt.err, tt.errText)
				}
				if strings.Contains(err.Error(), srv.BotToken()) {
					t.Errorf("the error shows the token: %v", err)
				}
			} else if err != nil || string(got) != tt.want {
				t.Fatalf("FetchFile = %q, %v; want %q", got, err, tt.want)
			}
			if n := len(srv.Downloads()) - before; n != tt.downloads {
				t.Errorf("%d download(s), want %d", n, tt.downloads)
			}
		})
	}
	if got := foreign.requests(); len(got) != 0 {
		t.Errorf("the foreign host got %d request(s), Authorization %q", len(got), got)
	}
}

// TestFetchFileRedirectAway: Slack answers a file the bot may not read
// with a redirect to the workspace's sign-in page. The redirect is not
// followed: the token, and the request, stay on Slack's hosts.
func TestFetchFileRedirectAway(t *testing.T) {
	foreign := newForeignHost(t)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, foreign.URL+"/?redir="+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(api.Close)
	ad, err := New(Config{BotToken: "xoxb-secret", AppToken: "xapp-1", APIURL: api.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ad.FetchFile(t.Context(), chat.File{ID: "F1", Name: "a.pdf", URL: api.URL + "/files-pri/T1-F1/download/a.pdf"}, 100)
	if !errors.Is(err, adapterkit.ErrRedirectRefused) || !strings.Contains(err.Error(), "files:read") || strings.Contains(err.Error(), "xoxb-secret") {
		t.Fatalf("FetchFile = %v, want a refused redirect naming the scope", err)
	}
	if got := foreign.requests(); len(got) != 0 {
		t.Errorf("the sign-in host got %d request(s), Authorization %q", len(got), got)
	}
}

// TestFakeFileHostWantsTheToken: like files.slack.com, the fake serves a
// file only to a request with the bot token.
func TestFakeFileHostWantsTheToken(t *testing.T) {
	srv := slacktest.NewServer(slacktest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	_, ids := srv.PostUserFiles("C1", "U1", "", "", slacktest.File{Name: "a.txt", Data: []byte("x")})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.FileURL(ids[0]), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if d := srv.Downloads(); resp.StatusCode != http.StatusForbidden || len(d) != 1 || d[0].Authorized {
		t.Errorf("without the token: %d, downloads %+v", resp.StatusCode, d)
	}
}

// TestFileStatus: the statuses of a download map to the core's shapes.
func TestFileStatus(t *testing.T) {
	f := chat.File{ID: "F1", Name: "a.pdf"}
	resp := func(code int, retryAfter string) *http.Response {
		return &http.Response{StatusCode: code, Header: http.Header{"Retry-After": {retryAfter}}}
	}
	if err := fileHost().Status(f, resp(http.StatusOK, "")); err != nil {
		t.Errorf("200: %v", err)
	}
	if d, ok := chat.RetryAfter(fileHost().Status(f, resp(http.StatusTooManyRequests, "7"))); !ok || d != 7*time.Second {
		t.Errorf("429: retry after %v, %v", d, ok)
	}
	if d, ok := chat.RetryAfter(fileHost().Status(f, resp(http.StatusTooManyRequests, ""))); !ok || d != time.Second {
		t.Errorf("429 without Retry-After: %v, %v", d, ok)
	}
	if err := fileHost().Status(f, resp(http.StatusUnauthorized, "")); !errors.Is(err, chat.ErrAuth) {
		t.Errorf("401: %v", err)
	}
	if err := fileHost().Status(f, resp(http.StatusForbidden, "")); err == nil || !strings.Contains(err.Error(), "files:read") {
		t.Errorf("403: %v", err)
	}
	if err := fileHost().Status(f, resp(http.StatusTeapot, "")); err == nil || !strings.Contains(err.Error(), "418") {
		t.Errorf("418: %v", err)
	}
}

// TestAudioClipHasItsDuration: an audio clip recorded in Slack is a file
// whose length (duration_ms) reaches the core, which limits it before
// downloading.
func TestAudioClipHasItsDuration(t *testing.T) {
	got := filesOf([]slack.File{
		{ID: "F1", Name: "audio_message.webm", Mimetype: "audio/webm", Size: 5000, DurationMs: 42_500, URLPrivateDownload: "https://files.slack.com/x"},
		{ID: "F2", Name: "notes.txt", Mimetype: "text/plain", DurationMs: -5},
		{ID: "F3", Name: "audio_message.mp4", Mimetype: "video/mp4", DurationMs: 3000},
		{ID: "F4", Name: "clip.webm", Mimetype: "video/webm", MediaDisplayType: "audio"},
		{ID: "F5", Name: "demo.mp4", Mimetype: "video/mp4", MediaDisplayType: "video", DurationMs: 9000},
	})
	if len(got) != 5 || got[0].Duration != 42500*time.Millisecond || got[1].Duration != 0 {
		t.Fatalf("files %+v, want the clip's 42.5 s and nothing for the text", got)
	}
	// Slack labels some audio clips by their container, video/…
	for i, want := range []string{"audio/webm", "text/plain", "audio/mp4", "audio/webm", "video/mp4"} {
		if got[i].MIME != want {
			t.Errorf("%s: type %q, want %q", got[i].Name, got[i].MIME, want)
		}
	}
}
